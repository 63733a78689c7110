import sharp from 'sharp';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { finalizeDomain, finalizeTypes } from '../shared/metadata/finalize-message';
import type { IndexedStack } from './stack';

// anvil's well-known development keys (accounts 1 and 2): test-only, never funded anywhere real.
export const creator = privateKeyToAccount(
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
);
export const stranger = privateKeyToAccount(
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdd0b365',
);

export interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  [key: string]: any;
}

export interface LaunchedDraft {
  draftId: string;
  token: Address;
  transactionHash: Hex;
  /** What the draft holds, so the same metadata can be launched again. */
  fields: { name: string; symbol: string; supply: bigint; metadataHash: Hex };
}

/**
 * The creator's side of draft → launch → finalize against a running stack, through the public
 * HTTP API and the real chain: upload a draft, launch it, sign the EIP-712 Finalize message.
 */
export async function createFinalizeFlow(stack: IndexedStack) {
  const image = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#ff8800' } })
    .png()
    .toBuffer();
  await stack.chain.client.test.setBalance({ address: creator.address, value: 10n ** 24n });
  let counter = 0;

  const call = async (
    method: string,
    path: string,
    body?: BodyInit,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${stack.server.baseUrl}${path}`, { method, body, headers });
    return { status: response.status, body: (await response.json()) as Json };
  };

  /** Launches a token on chain carrying the given name, symbol, supply and metadataHash. */
  const launch = async (fields: LaunchedDraft['fields']) => {
    const launched = await stack.chain.actions.launch({
      creator: creator.address,
      name: fields.name,
      symbol: fields.symbol,
      supply: fields.supply,
      metadataHash: fields.metadataHash,
    });
    return { token: launched.token.toLowerCase() as Address, transactionHash: launched.hash };
  };

  /** Uploads a draft, then launches it on chain; returns everything a finalize needs. */
  const draftAndLaunch = async (
    options: {
      draftCreator?: Address;
      launchOverrides?: { name?: string; symbol?: string; supply?: bigint };
      /** The logo uploaded (default: a 16 px orange square). */
      image?: Buffer;
    } = {},
  ): Promise<LaunchedDraft> => {
    counter++;
    const text = {
      name: `Finalize Me ${counter}`,
      symbol: `FIN${counter}`,
      initial_supply: (10n ** 27n).toString(),
      website_url: 'https://example.org',
    };
    const form = new FormData();
    for (const [key, value] of Object.entries(text)) form.append(key, value);
    if (options.draftCreator) form.append('creator', options.draftCreator);
    form.append(
      'image',
      new Blob([new Uint8Array(options.image ?? image)], { type: 'image/png' }),
      'logo.png',
    );
    const draft = await call('POST', '/api/v1/token-metadata', form);
    expect(draft.status).toBe(201);
    const fields = {
      name: text.name,
      symbol: text.symbol,
      supply: 10n ** 27n,
      metadataHash: draft.body.metadata_hash as Hex,
    };
    const launched = await launch({
      ...fields,
      name: options.launchOverrides?.name ?? fields.name,
      symbol: options.launchOverrides?.symbol ?? fields.symbol,
      supply: options.launchOverrides?.supply ?? fields.supply,
    });
    return { draftId: draft.body.draft_id as string, ...launched, fields };
  };

  const sign = (
    signer: typeof creator,
    draft: string,
    token: Address,
    transactionHash: Hex,
    chainId = 31337,
  ) =>
    signer.signTypedData({
      domain: finalizeDomain(chainId),
      types: finalizeTypes,
      primaryType: 'Finalize',
      message: { draft, token, transactionHash },
    });

  const finalize = (draft: string, body: Record<string, string>) =>
    call('POST', `/api/v1/token-metadata/${draft}/finalize`, JSON.stringify(body), {
      'content-type': 'application/json',
    });

  /** The finalize body the creator sends to bind `draftId` to this launch. */
  const signedBody = async (draftId: string, launched: { token: Address; transactionHash: Hex }) => ({
    token_address: launched.token,
    transaction_hash: launched.transactionHash,
    signature: await sign(creator, draftId, launched.token, launched.transactionHash),
  });

  return { call, launch, draftAndLaunch, sign, finalize, signedBody };
}
