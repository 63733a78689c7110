import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends } from '../../test/database';
import { createFinalizeFlow, creator, type Json, stranger } from '../../test/finalize-flow';
import { type IndexedStack, startIndexedStack } from '../../test/stack';

const [backend] = await availableBackends();

describe(`finalize on a real chain with the indexer running (${backend})`, () => {
  let stack: IndexedStack;
  let flow: Awaited<ReturnType<typeof createFinalizeFlow>>;

  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    stack = await startIndexedStack(
      backend,
      { seed: 61, launches: 3, actions: 20 },
      { RATE_LIMIT_UPLOADS_PER_MINUTE: '0', RATE_LIMIT_FINALIZE_PER_MINUTE: '0' },
      { proxy: true },
    );
    flow = await createFinalizeFlow(stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 409 not_indexed for a confirmed launch the index has not reached, then succeeds unchanged', async () => {
    const { draftId, token, transactionHash, body } = await launchAheadOfIndex();
    const early = await flow.finalize(draftId, body);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('not_indexed');
    stack.proxy?.freezeHead(undefined);
    await stack.waitForIndex();
    const later = await flow.finalize(draftId, body);
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({
      draft_id: draftId,
      token_address: token,
      transaction_hash: transactionHash,
    });
    // The binding shows in token detail and the linked view, and a repeat is idempotent.
    const detail = (await flow.call('GET', `/api/v1/tokens/${token}`)).body;
    expect(detail.metadata).toMatchObject({ draft_id: draftId, website_url: 'https://example.org' });
    expect(detail.metadata.image_url).toMatch(/^\/objects\//);
    const linked = (await flow.call('GET', '/api/v1/tokens?view=linked&limit=100')).body.items as Json[];
    expect(linked.map((t) => t.address)).toContain(token);
    expect(linked.find((t) => t.address === token)?.image_url).toBe(detail.metadata.image_url);
    const again = await flow.finalize(draftId, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(later.body);
  });

  it('rejects a wrong signer, another chain id and a signature for another draft with 401', async () => {
    const { draftId, token, transactionHash } = await flow.draftAndLaunch();
    await stack.waitForIndex();
    const other = await flow.draftAndLaunch();
    await stack.waitForIndex();
    const cases: [string, Hex][] = [
      ['wrong signer', await flow.sign(stranger, draftId, token, transactionHash)],
      ['other chain id', await flow.sign(creator, draftId, token, transactionHash, 1)],
      ['other draft', await flow.sign(creator, other.draftId, token, transactionHash)],
    ];
    for (const [name, signature] of cases) {
      const { status, body } = await flow.finalize(draftId, {
        token_address: token,
        transaction_hash: transactionHash,
        signature,
      });
      expect(status, name).toBe(401);
      expect(body.error.code, name).toBe('invalid_signature');
    }
  });

  it('rejects a launch whose name, symbol, supply or metadataHash differ (422 launch_mismatch)', async () => {
    const mismatched = await flow.draftAndLaunch({
      launchOverrides: { name: 'Different Name', symbol: 'DIFF', supply: 2n * 10n ** 27n },
    });
    await stack.waitForIndex();
    const { status, body } = await flow.finalize(
      mismatched.draftId,
      await flow.signedBody(mismatched.draftId, mismatched),
    );
    expect(status).toBe(422);
    expect(body.error.code).toBe('launch_mismatch');
    expect(body.error.details.map((d: Json) => d.field).sort()).toEqual(['initial_supply', 'name', 'symbol']);
    // Same fields, another draft's hash: the metadataHash alone mismatches.
    const a = await flow.draftAndLaunch();
    const b = await flow.draftAndLaunch();
    await stack.waitForIndex();
    const crossed = await flow.finalize(a.draftId, await flow.signedBody(a.draftId, b));
    expect(crossed.status).toBe(422);
    expect(crossed.body.error.details.map((d: Json) => d.field)).toContain('metadata_hash');
    // A transaction hash that did not launch this token.
    const wrongTx = await flow.finalize(
      a.draftId,
      await flow.signedBody(a.draftId, { token: a.token, transactionHash: b.transactionHash }),
    );
    expect(wrongTx.status).toBe(422);
  });

  it('refuses a second token for the same draft (409 already_finalized) and a draft owned by someone else (403)', async () => {
    const first = await flow.draftAndLaunch();
    await stack.waitForIndex();
    expect((await flow.finalize(first.draftId, await flow.signedBody(first.draftId, first))).status).toBe(
      200,
    );
    // A second launch carrying the same metadataHash, finalized against the already bound draft.
    const draftRow = (await flow.call('GET', `/api/v1/tokens/${first.token}`)).body;
    const second = await stack.chain.actions.launch({
      creator: creator.address,
      name: draftRow.identity.name,
      symbol: draftRow.identity.symbol,
      supply: 10n ** 27n,
      metadataHash: (await finalizeHashOf(first.token)) as Hex,
    });
    await stack.waitForIndex();
    const token2 = second.token.toLowerCase() as Address;
    const duplicate = await flow.finalize(
      first.draftId,
      await flow.signedBody(first.draftId, { token: token2, transactionHash: second.hash }),
    );
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('already_finalized');

    const owned = await flow.draftAndLaunch({ draftCreator: stranger.address });
    await stack.waitForIndex();
    const notOwner = await flow.finalize(owned.draftId, await flow.signedBody(owned.draftId, owned));
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.error.code).toBe('not_owner');
  });

  it('fails closed with 503 unavailable when the chain RPC cannot be reached', async () => {
    const { draftId, body } = await launchAheadOfIndex();
    stack.proxy?.setDown(true);
    try {
      const { status, body: answer } = await flow.finalize(draftId, body);
      expect(status).toBe(503);
      expect(answer.error.code).toBe('unavailable');
    } finally {
      stack.proxy?.setDown(false);
      stack.proxy?.freezeHead(undefined);
    }
    await stack.waitForIndex();
    expect((await flow.finalize(draftId, body)).status).toBe(200);
  });

  it('validates the request: unknown draft 404, malformed ids and fields 400, non-JSON 415', async () => {
    const token = `0x${'ab'.repeat(20)}`;
    const tx = `0x${'cd'.repeat(32)}`;
    const signature = `0x${'11'.repeat(65)}`;
    expect(
      (await flow.finalize('d_AAAAAAAAAAAAAAAA', { token_address: token, transaction_hash: tx, signature }))
        .status,
    ).toBe(404);
    expect(
      (await flow.finalize('nope', { token_address: token, transaction_hash: tx, signature })).body.error
        .code,
    ).toBe('invalid_parameter');
    const { draftId } = await flow.draftAndLaunch();
    expect(
      (await flow.finalize(draftId, { token_address: '0x12', transaction_hash: tx, signature })).body.error
        .code,
    ).toBe('invalid_address');
    expect(
      (await flow.finalize(draftId, { token_address: token, transaction_hash: '0x12', signature })).body.error
        .code,
    ).toBe('invalid_parameter');
    expect(
      (await flow.finalize(draftId, { token_address: token, transaction_hash: tx, signature: 'abc' })).body
        .error.code,
    ).toBe('invalid_parameter');
    expect((await flow.finalize(draftId, { token_address: token, transaction_hash: tx })).status).toBe(400);
    const form = await flow.call('POST', `/api/v1/token-metadata/${draftId}/finalize`, 'token_address=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    const broken = await flow.call('POST', `/api/v1/token-metadata/${draftId}/finalize`, '{not json', {
      'content-type': 'application/json',
    });
    expect(broken.status).toBe(400);
  });

  /** Freezes the index at the current head, then drafts, launches and signs the finalize body. */
  async function launchAheadOfIndex() {
    stack.proxy?.freezeHead(Number(await stack.chain.client.getBlockNumber()));
    const launched = await flow.draftAndLaunch();
    return { ...launched, body: await flow.signedBody(launched.draftId, launched) };
  }

  async function finalizeHashOf(token: Address): Promise<string> {
    const events = (await flow.call('GET', `/api/v1/tokens/${token}/activity?kind=launch`)).body
      .items as Json[];
    return events[0]?.data.metadataHash as string;
  }
});
