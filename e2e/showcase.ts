import { type Address, erc20Abi } from 'viem';
import { createCreatorStudio } from '../server/chain/simulator/creator-studio';
import { e2eChain, fundedWallet, waitForIndexedHead } from './chain';

/**
 * A token the way a creator makes one through the API (the creator studio: draft with logo and
 * links, launch carrying the draft's metadataHash, Finalize signed by the creator), then trading
 * a few minutes apart so the 1-minute chart shows a series of candles.
 */
export async function launchShowcaseToken(
  baseUrl: string,
  token: { name: string; symbol: string; description: string; buys: bigint[] },
): Promise<Address> {
  const { actions, client, deployment } = e2eChain();
  const studio = createCreatorStudio({ baseUrl, client, deployment, seed: `showcase:${token.symbol}` });
  const { token: address } = await studio.launch({ token });
  for (const [index, value] of token.buys.entries()) {
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
  return address;
}
