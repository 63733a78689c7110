import sharp from 'sharp';
import { type Address, erc20Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { finalizeDomain, finalizeTypes } from '../server/metadata/finalize';
import { e2eChain, fundedWallet, waitForIndexedHead } from './chain';

/** anvil's well-known test account #3: a real key, so the creator can sign Finalize. */
const creatorAccount = privateKeyToAccount(
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
);

async function logo(colour: string, letter: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${colour}"/><stop offset="1" stop-color="#1b1e2b"/></linearGradient></defs>
    <rect width="256" height="256" fill="url(#g)"/>
    <text x="128" y="168" font-family="sans-serif" font-size="128" font-weight="700" fill="#fff" text-anchor="middle">${letter}</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/**
 * A token the way a creator makes one through the API: draft with image and links, launch
 * carrying the draft's metadataHash, Finalize signed by the creator, then some trading.
 */
export async function launchShowcaseToken(
  baseUrl: string,
  token: { name: string; symbol: string; description: string; colour: string; buys: bigint[] },
): Promise<Address> {
  const { actions, client } = e2eChain();
  await client.test.setBalance({ address: creatorAccount.address, value: 10n ** 24n });
  const form = new FormData();
  form.append('name', token.name);
  form.append('symbol', token.symbol);
  form.append('description', token.description);
  form.append('initial_supply', (10n ** 27n).toString());
  form.append('website_url', `https://${token.symbol.toLowerCase()}.example`);
  form.append('x_url', `https://x.com/${token.symbol.toLowerCase()}`);
  form.append('creator', creatorAccount.address);
  const image = await logo(token.colour, [...token.symbol][0] ?? '?');
  form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'logo.png');
  const draftResponse = await fetch(`${baseUrl}/api/v1/token-metadata`, { method: 'POST', body: form });
  if (draftResponse.status !== 201)
    throw new Error(`draft: ${draftResponse.status} ${await draftResponse.text()}`);
  const draft = (await draftResponse.json()) as { draft_id: string; metadata_hash: Hex };
  const launched = await actions.launch({
    creator: creatorAccount.address,
    name: token.name,
    symbol: token.symbol,
    supply: 10n ** 27n,
    metadataHash: draft.metadata_hash,
  });
  const address = launched.token.toLowerCase() as Address;
  for (const [index, value] of token.buys.entries()) {
    // A few minutes between trades, so the 1-minute chart shows a series of candles.
    await client.test.increaseTime({ seconds: 150 });
    const trader = await fundedWallet(100 + index);
    await actions.buy({ trader, token: address, value });
    if (index % 3 === 2) {
      const balance = await client.readContract({
        address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [trader],
      });
      await client.test.increaseTime({ seconds: 90 });
      await actions.sell({ trader, token: address, amount: balance / 2n });
    }
  }
  await waitForIndexedHead(baseUrl);
  const signature = await creatorAccount.signTypedData({
    domain: finalizeDomain(31337),
    types: finalizeTypes,
    primaryType: 'Finalize',
    message: { draft: draft.draft_id, token: address, transactionHash: launched.hash },
  });
  const finalized = await fetch(`${baseUrl}/api/v1/token-metadata/${draft.draft_id}/finalize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token_address: address, transaction_hash: launched.hash, signature }),
  });
  if (!finalized.ok) throw new Error(`finalize: ${finalized.status} ${await finalized.text()}`);
  return address;
}
