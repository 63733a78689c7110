import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends } from '../../test/database';
import { createFinalizeFlow, type Json } from '../../test/finalize-flow';
import { type IndexedStack, startIndexedStack } from '../../test/stack';

const backends = await availableBackends();

// Several web instances share one database, so idempotency has to hold in the database, not in a
// process: these requests really arrive at once and race inside the server.
describe.each(backends)('concurrent finalizes on a real chain and database (%s)', (backend) => {
  let stack: IndexedStack;
  let flow: Awaited<ReturnType<typeof createFinalizeFlow>>;

  beforeAll(async () => {
    stack = await startIndexedStack(
      backend,
      { seed: 67, launches: 1, actions: 5 },
      {
        RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
        RATE_LIMIT_FINALIZE_PER_MINUTE: '0',
        RATE_LIMIT_READS_PER_MINUTE: '0',
      },
    );
    flow = await createFinalizeFlow(stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 8 identical finalizes sent at once with 8 × 200, one binding and the same body', async () => {
    const launched = await flow.draftAndLaunch();
    await stack.waitForIndex();
    const body = await flow.signedBody(launched.draftId, launched);

    const answers = await Promise.all(Array.from({ length: 8 }, () => flow.finalize(launched.draftId, body)));

    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    const [first] = answers;
    for (const answer of answers) expect(answer.body).toEqual(first?.body);
    expect(first?.body).toMatchObject({
      draft_id: launched.draftId,
      token_address: launched.token,
      transaction_hash: launched.transactionHash,
      metadata_hash: launched.fields.metadataHash,
    });
    // One binding: the token shows the draft, and a later repeat answers the very same body.
    const detail = (await flow.call('GET', `/api/v1/tokens/${launched.token}`)).body;
    expect(detail.metadata.draft_id).toBe(launched.draftId);
    const again = await flow.finalize(launched.draftId, body);
    expect(again).toEqual({ status: 200, body: first?.body });

    // The same draft to another token (same metadata launched again) is still a conflict.
    const second = await flow.launch(launched.fields);
    await stack.waitForIndex();
    const elsewhere = await flow.finalize(launched.draftId, await flow.signedBody(launched.draftId, second));
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error.code).toBe('already_finalized');
    const secondDetail = (await flow.call('GET', `/api/v1/tokens/${second.token}`)).body;
    expect(secondDetail.metadata?.draft_id ?? null).toBeNull();
  });

  it('binds one draft raced to two tokens exactly once: one token’s requests all 200, the other’s all 409', async () => {
    const launched = await flow.draftAndLaunch();
    const twin = await flow.launch(launched.fields);
    await stack.waitForIndex();
    const toFirst = await flow.signedBody(launched.draftId, launched);
    const toTwin = await flow.signedBody(launched.draftId, twin);

    // Interleaved: first, twin, first, twin, ... all in flight together.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        flow.finalize(launched.draftId, index % 2 === 0 ? toFirst : toTwin),
      ),
    );
    const forFirst = answers.filter((_, index) => index % 2 === 0);
    const forTwin = answers.filter((_, index) => index % 2 === 1);
    const winner = forFirst[0]?.status === 200 ? forFirst : forTwin;
    const loser = winner === forFirst ? forTwin : forFirst;
    const winningToken = winner === forFirst ? launched.token : twin.token;

    expect(winner.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    for (const answer of winner) expect(answer.body).toEqual(winner[0]?.body);
    expect(winner[0]?.body.token_address).toBe(winningToken);
    expect(loser.map((answer) => answer.status)).toEqual([409, 409, 409, 409]);
    for (const answer of loser) expect((answer.body as Json).error.code).toBe('already_finalized');
  });
});
