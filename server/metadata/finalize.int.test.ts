import sharp from 'sharp';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends } from '../_test/database';
import { type IndexedStack, startIndexedStack } from '../_test/stack';
import { finalizeDomain, finalizeTypes } from './finalize-message';

const [backend] = await availableBackends();

// anvil's well-known development keys (accounts 1 and 2): test-only, never funded anywhere real.
const creator = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const stranger = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdd0b365');

interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  [key: string]: any;
}

describe(`finalize on a real chain with the indexer running (${backend})`, () => {
  let stack: IndexedStack;
  let image: Buffer;
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

  /** Uploads a draft, then launches it on chain; returns everything a finalize needs. */
  async function draftAndLaunch(
    options: {
      draftCreator?: Address;
      launchOverrides?: { name?: string; symbol?: string; supply?: bigint };
    } = {},
  ) {
    counter++;
    const fields = {
      name: `Finalize Me ${counter}`,
      symbol: `FIN${counter}`,
      initial_supply: (10n ** 27n).toString(),
      website_url: 'https://example.org',
    };
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    if (options.draftCreator) form.append('creator', options.draftCreator);
    form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'logo.png');
    const draft = await call('POST', '/api/v1/token-metadata', form);
    expect(draft.status).toBe(201);
    const launched = await stack.chain.actions.launch({
      creator: creator.address,
      name: options.launchOverrides?.name ?? fields.name,
      symbol: options.launchOverrides?.symbol ?? fields.symbol,
      supply: options.launchOverrides?.supply ?? 10n ** 27n,
      metadataHash: draft.body.metadata_hash as Hex,
    });
    return {
      draftId: draft.body.draft_id as string,
      token: launched.token.toLowerCase() as Address,
      transactionHash: launched.hash,
    };
  }

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

  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    image = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#ff8800' } })
      .png()
      .toBuffer();
    stack = await startIndexedStack(
      backend,
      { seed: 61, launches: 3, actions: 20 },
      { RATE_LIMIT_UPLOADS_PER_MINUTE: '0', RATE_LIMIT_FINALIZE_PER_MINUTE: '0' },
      { proxy: true },
    );
    await stack.chain.client.test.setBalance({ address: creator.address, value: 10n ** 24n });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 409 not_indexed for a confirmed launch the index has not reached, then succeeds unchanged', async () => {
    const head = Number(await stack.chain.client.getBlockNumber());
    stack.proxy?.freezeHead(head);
    const { draftId, token, transactionHash } = await draftAndLaunch();
    const body = {
      token_address: token,
      transaction_hash: transactionHash,
      signature: await sign(creator, draftId, token, transactionHash),
    };
    const early = await finalize(draftId, body);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('not_indexed');
    stack.proxy?.freezeHead(undefined);
    await stack.waitForIndex();
    const later = await finalize(draftId, body);
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({
      draft_id: draftId,
      token_address: token,
      transaction_hash: transactionHash,
    });
    // The binding shows in token detail and the linked view, and a repeat is idempotent.
    const detail = (await call('GET', `/api/v1/tokens/${token}`)).body;
    expect(detail.metadata).toMatchObject({ draft_id: draftId, website_url: 'https://example.org' });
    expect(detail.metadata.image_url).toMatch(/^\/objects\//);
    const linked = (await call('GET', '/api/v1/tokens?view=linked&limit=100')).body.items as Json[];
    expect(linked.map((t) => t.address)).toContain(token);
    expect(linked.find((t) => t.address === token)?.image_url).toBe(detail.metadata.image_url);
    const again = await finalize(draftId, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(later.body);
  });

  it('rejects a wrong signer, another chain id and a signature for another draft with 401', async () => {
    const { draftId, token, transactionHash } = await draftAndLaunch();
    await stack.waitForIndex();
    const other = await draftAndLaunch();
    await stack.waitForIndex();
    const cases: [string, Hex][] = [
      ['wrong signer', await sign(stranger, draftId, token, transactionHash)],
      ['other chain id', await sign(creator, draftId, token, transactionHash, 1)],
      ['other draft', await sign(creator, other.draftId, token, transactionHash)],
    ];
    for (const [name, signature] of cases) {
      const { status, body } = await finalize(draftId, {
        token_address: token,
        transaction_hash: transactionHash,
        signature,
      });
      expect(status, name).toBe(401);
      expect(body.error.code, name).toBe('invalid_signature');
    }
  });

  it('rejects a launch whose name, symbol, supply or metadataHash differ (422 launch_mismatch)', async () => {
    const mismatched = await draftAndLaunch({
      launchOverrides: { name: 'Different Name', symbol: 'DIFF', supply: 2n * 10n ** 27n },
    });
    await stack.waitForIndex();
    const { status, body } = await finalize(mismatched.draftId, {
      token_address: mismatched.token,
      transaction_hash: mismatched.transactionHash,
      signature: await sign(creator, mismatched.draftId, mismatched.token, mismatched.transactionHash),
    });
    expect(status).toBe(422);
    expect(body.error.code).toBe('launch_mismatch');
    expect(body.error.details.map((d: Json) => d.field).sort()).toEqual(['initial_supply', 'name', 'symbol']);
    // Same fields, another draft's hash: the metadataHash alone mismatches.
    const a = await draftAndLaunch();
    const b = await draftAndLaunch();
    await stack.waitForIndex();
    const crossed = await finalize(a.draftId, {
      token_address: b.token,
      transaction_hash: b.transactionHash,
      signature: await sign(creator, a.draftId, b.token, b.transactionHash),
    });
    expect(crossed.status).toBe(422);
    expect(crossed.body.error.details.map((d: Json) => d.field)).toContain('metadata_hash');
    // A transaction hash that did not launch this token.
    const wrongTx = await finalize(a.draftId, {
      token_address: a.token,
      transaction_hash: b.transactionHash,
      signature: await sign(creator, a.draftId, a.token, b.transactionHash),
    });
    expect(wrongTx.status).toBe(422);
  });

  it('refuses a second token for the same draft (409 already_finalized) and a draft owned by someone else (403)', async () => {
    const first = await draftAndLaunch();
    await stack.waitForIndex();
    expect(
      (
        await finalize(first.draftId, {
          token_address: first.token,
          transaction_hash: first.transactionHash,
          signature: await sign(creator, first.draftId, first.token, first.transactionHash),
        })
      ).status,
    ).toBe(200);
    // A second launch carrying the same metadataHash, finalized against the already bound draft.
    const draftRow = (await call('GET', `/api/v1/tokens/${first.token}`)).body;
    const second = await stack.chain.actions.launch({
      creator: creator.address,
      name: draftRow.identity.name,
      symbol: draftRow.identity.symbol,
      supply: 10n ** 27n,
      metadataHash: (await finalizeHashOf(first.token)) as Hex,
    });
    await stack.waitForIndex();
    const token2 = second.token.toLowerCase() as Address;
    const duplicate = await finalize(first.draftId, {
      token_address: token2,
      transaction_hash: second.hash,
      signature: await sign(creator, first.draftId, token2, second.hash),
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('already_finalized');

    const owned = await draftAndLaunch({ draftCreator: stranger.address });
    await stack.waitForIndex();
    const notOwner = await finalize(owned.draftId, {
      token_address: owned.token,
      transaction_hash: owned.transactionHash,
      signature: await sign(creator, owned.draftId, owned.token, owned.transactionHash),
    });
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.error.code).toBe('not_owner');
  });

  it('fails closed with 503 unavailable when the chain RPC cannot be reached', async () => {
    const head = Number(await stack.chain.client.getBlockNumber());
    stack.proxy?.freezeHead(head);
    const { draftId, token, transactionHash } = await draftAndLaunch();
    const body = {
      token_address: token,
      transaction_hash: transactionHash,
      signature: await sign(creator, draftId, token, transactionHash),
    };
    stack.proxy?.setDown(true);
    try {
      const { status, body: answer } = await finalize(draftId, body);
      expect(status).toBe(503);
      expect(answer.error.code).toBe('unavailable');
    } finally {
      stack.proxy?.setDown(false);
      stack.proxy?.freezeHead(undefined);
    }
    await stack.waitForIndex();
    expect((await finalize(draftId, body)).status).toBe(200);
  });

  it('validates the request: unknown draft 404, malformed ids and fields 400, non-JSON 415', async () => {
    const token = `0x${'ab'.repeat(20)}`;
    const tx = `0x${'cd'.repeat(32)}`;
    const signature = `0x${'11'.repeat(65)}`;
    expect(
      (await finalize('d_AAAAAAAAAAAAAAAA', { token_address: token, transaction_hash: tx, signature }))
        .status,
    ).toBe(404);
    expect(
      (await finalize('nope', { token_address: token, transaction_hash: tx, signature })).body.error.code,
    ).toBe('invalid_parameter');
    const { draftId } = await draftAndLaunch();
    expect(
      (await finalize(draftId, { token_address: '0x12', transaction_hash: tx, signature })).body.error.code,
    ).toBe('invalid_address');
    expect(
      (await finalize(draftId, { token_address: token, transaction_hash: '0x12', signature })).body.error
        .code,
    ).toBe('invalid_parameter');
    expect(
      (await finalize(draftId, { token_address: token, transaction_hash: tx, signature: 'abc' })).body.error
        .code,
    ).toBe('invalid_parameter');
    expect((await finalize(draftId, { token_address: token, transaction_hash: tx })).status).toBe(400);
    const form = await call('POST', `/api/v1/token-metadata/${draftId}/finalize`, 'token_address=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    const broken = await call('POST', `/api/v1/token-metadata/${draftId}/finalize`, '{not json', {
      'content-type': 'application/json',
    });
    expect(broken.status).toBe(400);
  });

  async function finalizeHashOf(token: Address): Promise<string> {
    const events = (await call('GET', `/api/v1/tokens/${token}/activity?kind=launch`)).body.items as Json[];
    return events[0]?.data.metadataHash as string;
  }
});
