import { sql } from 'drizzle-orm';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedAddress, reorgWithBuys } from '../../test/chain';
import { availableBackends } from '../../test/database';
import { buildOracle, type Oracle } from '../../test/oracle/model';
import { getJson, type Json, walkPages } from '../../test/oracle/walk';
import { type IndexedStack, startIndexedStack } from '../../test/stack';
import { selectRows } from '../db/client';

/*
 * Rule (docs/api.md, "Balances at a block"): `/tokens/{address}/holders?block=N` and
 * `/wallets/{address}/holdings?block=N` answer the balances at the end of block N as a replay of
 * the chain's Transfers up to N gives them (the oracle, test/oracle, shares no code with the
 * indexer), page by page, through a reorg and restarts of the indexer; a `block` that is not a
 * canonical block number, or past the index, is a 400, and a cursor belongs to its block. The
 * stack cuts balance history into segments every few holder rows (HISTORY_SEGMENT_MIN_EVENTS=4,
 * test/stack.ts), so answers cross segment starts everywhere.
 */

const backends = await availableBackends();

describe.each(backends)('balances at a block (%s)', (backend) => {
  let stack: IndexedStack;

  beforeAll(async () => {
    stack = await startIndexedStack(backend, { seed: 91, launches: 8, actions: 150 });
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const oracleNow = async (): Promise<Oracle> => {
    await stack.waitForIndex();
    return buildOracle({ view: await stack.readChainView() });
  };

  /** Walks every token's holders and the first wallets' holdings at `blocks`; the differences. */
  async function differences(oracle: Oracle, blocks: readonly number[], wallets = 12): Promise<string[]> {
    const found: string[] = [];
    const compare = async (path: string, expected: Json[]) => {
      for (const limit of [3, 100]) {
        const walked = await walkPages(stack.server.baseUrl, path, limit);
        if (JSON.stringify(walked.items) !== JSON.stringify(expected))
          found.push(
            `${path} (limit ${limit}): ${JSON.stringify(walked.items)} != ${JSON.stringify(expected)}`,
          );
      }
    };
    for (const block of blocks) {
      for (const token of oracle.tokenAddresses)
        await compare(`/api/v1/tokens/${token}/holders?block=${block}`, oracle.holdersAt(token, block));
      for (const wallet of oracle.wallets.slice(0, wallets))
        await compare(`/api/v1/wallets/${wallet}/holdings?block=${block}`, oracle.holdingsAt(wallet, block));
    }
    return found;
  }

  it('answers every third block that moved balances, and the head, as the replay of Transfers up to it', async () => {
    const oracle = await oracleNow();
    const blocks = oracle.transferBlocks().filter((_, i, all) => i % 3 === 0 || i === all.length - 1);
    expect(blocks.length).toBeGreaterThan(20);
    expect((await differences(oracle, blocks)).slice(0, 3)).toEqual([]);
    // At the head, a page at a block is the page without one.
    const [token] = oracle.tokenAddresses;
    const now = await getJson(stack.server.baseUrl, `/api/v1/tokens/${token}/holders?limit=100`);
    const atHead = await getJson(
      stack.server.baseUrl,
      `/api/v1/tokens/${token}/holders?limit=100&block=${oracle.head.number}`,
    );
    expect(atHead.body.items).toEqual(now.body.items);
    if (backend === 'postgres') {
      // The answers crossed segment starts: the history really was cut into segments.
      const handle = await stack.database.open();
      try {
        const [row] = await selectRows<{ segments: number }>(
          handle.db,
          sql`select count(distinct (token_address, segment))::int as segments from balance_history`,
        );
        expect(row?.segments).toBeGreaterThan(2 * oracle.tokenAddresses.length);
      } finally {
        await handle.close();
      }
    }
  }, 300_000);

  it('refuses a block that is not a canonical block number, or past the index, naming the indexed block', async () => {
    const oracle = await oracleNow();
    const head = oracle.head.number;
    const [token] = oracle.tokenAddresses;
    const [wallet] = oracle.wallets;
    for (const bad of ['01', '+1', ' 1', '-1', '-0', '1.0', '1e3', '0x10', '', 'latest', '9'.repeat(17)]) {
      for (const path of [`/api/v1/tokens/${token}/holders`, `/api/v1/wallets/${wallet}/holdings`]) {
        const { status, body } = await getJson(
          stack.server.baseUrl,
          `${path}?block=${encodeURIComponent(bad)}`,
        );
        expect([bad, status, (body.error as Json).code]).toEqual([bad, 400, 'invalid_parameter']);
      }
    }
    for (const path of [
      `/api/v1/tokens/${token}/holders`,
      `/api/v1/wallets/${wallet}/holdings`,
      // An address without a row: the block is refused before anything is looked up.
      `/api/v1/wallets/0x${'12'.repeat(20)}/holdings`,
    ]) {
      const { status, body } = await getJson(stack.server.baseUrl, `${path}?block=${head + 1}`);
      expect(status).toBe(400);
      expect((body.error as Json).message).toBe(`block ${head + 1} is beyond the indexed block ${head}`);
    }
    // Twice is as ambiguous as a bad value.
    const { status } = await getJson(stack.server.baseUrl, `/api/v1/tokens/${token}/holders?block=1&block=2`);
    expect(status).toBe(400);
  }, 120_000);

  it('binds a cursor to its block: another block, or none, is a 400 invalid_cursor', async () => {
    const oracle = await oracleNow();
    const token = oracle.tokenAddresses.find((t) => oracle.holdersAt(t, oracle.head.number).length > 2);
    if (!token) throw new Error('no token with three holders');
    const head = oracle.head.number;
    const path = `/api/v1/tokens/${token}/holders?limit=1`;
    const first = await getJson(stack.server.baseUrl, `${path}&block=${head}`);
    const cursor = encodeURIComponent(String(first.body.next_cursor));
    const now = await getJson(stack.server.baseUrl, path);
    for (const [misused, why] of [
      [`${path}&block=${head - 1}&cursor=${cursor}`, 'another block'],
      [`${path}&cursor=${cursor}`, 'no block'],
      [
        `${path}&block=${head}&cursor=${encodeURIComponent(String(now.body.next_cursor))}`,
        'a cursor of no block',
      ],
    ] as const) {
      const { status, body } = await getJson(stack.server.baseUrl, misused);
      expect([why, status, (body.error as Json).code]).toEqual([why, 400, 'invalid_cursor']);
    }
    const second = await getJson(stack.server.baseUrl, `${path}&block=${head}&cursor=${cursor}`);
    expect(second.status).toBe(200);
  }, 120_000);

  it('after a reorg, the blocks it replaced answer the new chain, the blocks below it the same', async () => {
    const before = await oracleNow();
    // Curves still open, so that the replacement blocks' buys go through.
    const curves: Address[] = [];
    for (const token of before.tokenAddresses) {
      const { curve, graduated } = await stack.chain.actions.curveState(token as Address);
      if (!graduated) curves.push(curve);
    }
    expect(curves.length).toBeGreaterThan(0);
    const depth = 4;
    await reorgWithBuys(stack.chain.client, depth, curves, 900, 77n);
    // One block past the reorged tip: an index that reached it has seen the reorg (its parent is new).
    await stack.chain.client.test.mine({ blocks: 1 });
    const after = await oracleNow();
    const head = after.head.number - 1;
    const replaced = Array.from({ length: depth }, (_, i) => head - i);
    // The replaced blocks hold other buys now: some token's holders there differ from before.
    expect(
      after.tokenAddresses.some((t) =>
        replaced.some(
          (b) => JSON.stringify(after.holdersAt(t, b)) !== JSON.stringify(before.holdersAt(t, b)),
        ),
      ),
    ).toBe(true);
    expect((await differences(after, [head - depth - 1, head - depth, ...replaced])).slice(0, 3)).toEqual([]);
  }, 300_000);

  it('a balance that leaves and comes back while the indexer is down answers the replay at the blocks between', async () => {
    const before = await oracleNow();
    const holder = before.wallets.find((w) => before.holdingsAt(w, before.head.number).length > 0);
    const [held] = holder === undefined ? [] : before.holdingsAt(holder, before.head.number);
    if (!holder || !held) throw new Error('no wallet holds anything');
    const token = (held.token as Json).address as Address;
    const amount = BigInt(String(held.balance));
    const other = await fundedAddress(stack.chain, 322);
    // All of it out and back in blocks of their own, read by the restarted indexer in one range:
    // the holder's row ends the range as it began, yet it was someone else's at the block between.
    await stack.restart(async () => {
      await stack.chain.actions.transfer({ from: holder as Address, token, to: other, amount });
      await stack.chain.actions.transfer({ from: other, token, to: holder as Address, amount });
    });
    const after = await oracleNow();
    const blocks = [before.head.number, before.head.number + 1, after.head.number];
    expect(after.holdersAt(token, blocks[1] as number).some((h) => h.wallet === holder)).toBe(false);
    expect((await differences(after, blocks)).slice(0, 3)).toEqual([]);
  }, 300_000);

  it('after the indexer restarts and the chain moves on, every block still answers the replay', async () => {
    await stack.restart();
    const oracle = await oracleNow();
    const trader = await fundedAddress(stack.chain, 321);
    const holder = oracle.wallets.find((w) => oracle.holdingsAt(w, oracle.head.number).length > 0);
    const [held] = holder === undefined ? [] : oracle.holdingsAt(holder, oracle.head.number);
    if (!holder || !held) throw new Error('no wallet holds anything');
    const token = (held.token as Json).address as Address;
    await stack.chain.actions.buy({ trader, token, value: 10n ** 16n }).catch(() => undefined);
    await stack.chain.actions.transfer({
      from: holder as Address,
      token,
      to: trader,
      amount: BigInt(String(held.balance)) / 2n,
    });
    const moved = await oracleNow();
    const blocks = moved.transferBlocks().filter((_, i, all) => i % 7 === 0 || i >= all.length - 3);
    expect((await differences(moved, blocks)).slice(0, 3)).toEqual([]);
  }, 300_000);
});
