import { type SQL, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends, createTestDatabase } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import {
  chainConfigFor,
  dumpProjections,
  indexToHead,
  projectionContextFor,
  silentLogger,
  withTwoDatabases,
} from '../../test/indexer/harness';
import { type DatabaseHandle, selectRows } from '../db/client';
import { createPartitionKeeper } from '../db/partitions';
import { topics } from './decode/events';
import { IndexerError } from './errors';
import { createIndexer } from './indexer';
import { readCheckpoint } from './project/apply-batch';
import { createBalanceBook, loadBalances, loadTraderBalances } from './project/balance-book';
import { type BatchPlan, foldRange, touchedTokens } from './project/fold';
import type { TokenState } from './project/state';
import { createTraderBook, foldTraders, loadTraders, rememberTraders } from './project/trader-book';
import { defaultLabelParams } from './project/traders';
import { writePlan } from './project/write';
import { createRpcClient, type RpcClient } from './rpc/client';
import { fixedAddressBook } from './sync/address-book';
import { fetchRange } from './sync/fetch-range';
import { createFundingReader } from './sync/funding-blocks';
import type { RangeData } from './sync/range-algebra';

const backends = await availableBackends();
let chain: TestChain;

/**
 * The pipeline's shortcuts (balances and token states kept in memory, emitters looked up, two
 * writes at once) against an index built without them: the same projections.
 */
simulatedChainForTests({ seed: 11, launches: 30, actions: 350 }, (started) => {
  chain = started.chain;
});

/**
 * An RPC client over the test chain whose head rises `stride` blocks per eth_blockNumber, from
 * the deployment block to the real head: each indexer step indexes the next few blocks.
 */
async function risingHeadClient(
  stride: number,
  observe: (method: string, params: unknown[]) => void = () => {},
): Promise<{ client: RpcClient; realHead: number }> {
  const rpc = createRpcClient({ url: chain.anvil.rpcUrl });
  const realHead = Number(await chain.client.getBlockNumber());
  let shownHead = chain.deployment.startBlock;
  const client: RpcClient = {
    async request<T>(method: string, params: unknown[], options?: { maxResponseBytes?: number }): Promise<T> {
      observe(method, params);
      if (method === 'eth_blockNumber') {
        shownHead = Math.min(realHead, shownHead + stride);
        return `0x${shownHead.toString(16)}` as T;
      }
      return rpc.request<T>(method, params, options);
    },
    batch: (requests) => rpc.batch(requests),
  };
  return { client, realHead };
}

describe.each(backends)('balances kept in memory between ranges (%s)', (backend) => {
  let a: DatabaseHandle;

  testDatabaseForTests(backend, async (opened) => {
    a = opened.handle;
    await indexToHead(a.db, chain);
  });

  /** A fresh database for `body`, dropped afterwards. */
  async function withFreshDatabase(body: (b: DatabaseHandle) => Promise<void>) {
    const database = await createTestDatabase(backend);
    const b = await database.open();
    try {
      await body(b);
    } finally {
      await b.close();
      await database.drop();
    }
  }

  /** A fresh database indexed by an indexer whose node's head rises 25 blocks per step. */
  function withSteppedIndexer(
    options: { cachedBalances?: number },
    body: (b: DatabaseHandle, indexer: ReturnType<typeof createIndexer>, realHead: number) => Promise<void>,
  ) {
    return withFreshDatabase(async (b) => {
      const { client, realHead } = await risingHeadClient(25);
      const indexer = createIndexer({
        db: b.db,
        rpc: client,
        chain: chainConfigFor(chain),
        logger: silentLogger,
        ...options,
      });
      await body(b, indexer, realHead);
    });
  }

  it('a book that keeps nothing between ranges reads every balance back and gives the same index', async () => {
    await withSteppedIndexer({ cachedBalances: 0 }, async (b, indexer, realHead) => {
      while (indexer.status.indexedThroughBlock !== realHead) await indexer.step();
      expect(indexer.status.balanceReads).toBeGreaterThan(100);
      expect(await dumpProjections(b.db)).toEqual(await dumpProjections(a.db));
    });
  });

  it('a book that keeps nothing, over small ranges folded ahead of their writes, gives the same index', async () => {
    await withFreshDatabase(async (b) => {
      // Balance reads are slowed down so that writes commit while later ranges read: nothing
      // those ranges rely on without having asked for it may be evicted meanwhile.
      const slowReads = new Proxy(b.db, {
        get(target, property, receiver) {
          if (property !== 'execute') return Reflect.get(target, property, receiver);
          return async (query: SQL) => {
            const text = query.queryChunks.map((chunk) => (chunk as { value?: unknown }).value).join(' ');
            if (text.includes('join balances b')) await new Promise((resolve) => setTimeout(resolve, 50));
            return target.execute(query);
          };
        },
      });
      const indexer = await indexToHead(slowReads, chain, {
        initialRange: 5,
        chain: { maxRange: 5 },
        cachedBalances: 0,
      });
      expect(indexer.status.batches).toBeGreaterThan(20);
      expect(indexer.status.balanceReads).toBeGreaterThan(100);
      expect(await dumpProjections(b.db)).toEqual(await dumpProjections(a.db));
    });
  });

  it('a balance changed under the indexer fails the write whole; the next step reads it again', async () => {
    await withSteppedIndexer({}, async (b, indexer, realHead) => {
      const transfersIn = (from: number, to: number) =>
        selectRows<{ token: string; from: string; to: string }>(
          a.db,
          sql`select token_address as token, data->>'from' as "from", data->>'to' as "to" from chain_events
               where kind = 'transfer' and block_number > ${from} and block_number <= ${to} order by block_number, log_index`,
        );
      const storedKeys = async () =>
        new Set(
          (
            await selectRows<{ key: string }>(
              b.db,
              sql`select token_address || ':' || wallet as key from balances`,
            )
          ).map((r) => r.key),
        );
      const stepTo = async (block: number) => {
        while ((indexer.status.indexedThroughBlock ?? 0) < block) await indexer.step();
        return indexer.status.indexedThroughBlock ?? 0;
      };
      const failedStep = async (tamper: SQL, undo: SQL, message: RegExp) => {
        await b.db.execute(tamper);
        const before = indexer.status.indexedThroughBlock ?? 0;
        let error: unknown;
        while (indexer.status.indexedThroughBlock !== realHead && error === undefined) {
          const result = await indexer.step();
          if (result.kind === 'halted') error = result.error;
        }
        // The step says it halted, and why, and that the loop is to retry it after a wait.
        expect(error).toBeInstanceOf(IndexerError);
        expect((error as IndexerError).retry).toBe('later');
        expect(String(error)).toMatch(message);
        // Nothing of the failed write is visible: the checkpoint is that of the writes before it.
        const after = await readCheckpoint(b.db);
        expect(after?.indexedThroughBlock).toBe(indexer.status.indexedThroughBlock);
        expect(after?.indexedThroughBlock).toBeGreaterThanOrEqual(before);
        await b.db.execute(undo);
      };
      const span = realHead - chain.deployment.startBlock;

      // A row the book says does not exist (every token was launched under this indexer): its
      // COPY fails on the primary key, and the error reaches the indexer.
      const first = await stepTo(chain.deployment.startBlock + Math.floor(span / 3));
      const stored = await storedKeys();
      const fresh = (await transfersIn(first, realHead)).find((t) => !stored.has(`${t.token}:${t.to}`));
      if (!fresh) throw new Error('no upcoming transfer to a wallet without a row');
      await failedStep(
        sql`insert into balances (token_address, wallet, balance, kind) values (${fresh.token}, ${fresh.to}, 5, 0)`,
        sql`delete from balances where token_address = ${fresh.token} and wallet = ${fresh.to}`,
        /duplicate key value violates unique constraint/,
      );

      // The failure emptied the book; the wallets moved since were read back into it. One of
      // those, changed by someone else: the set that expects the folded-from balance matches no row.
      const since = indexer.status.indexedThroughBlock ?? 0;
      const second = await stepTo(chain.deployment.startBlock + Math.floor((2 * span) / 3));
      const reloaded = new Set(
        (await transfersIn(since, second)).flatMap((t) => [`${t.token}:${t.from}`, `${t.token}:${t.to}`]),
      );
      const now = await storedKeys();
      const held = (await transfersIn(second, realHead)).find(
        (t) => reloaded.has(`${t.token}:${t.to}`) && now.has(`${t.token}:${t.to}`),
      );
      if (!held) throw new Error('no upcoming transfer to a wallet the book holds');
      await failedStep(
        sql`update balances set balance = balance + 1 where token_address = ${held.token} and wallet = ${held.to}`,
        sql`update balances set balance = balance - 1 where token_address = ${held.token} and wallet = ${held.to}`,
        /balances changed under the indexer/,
      );
      while (indexer.status.indexedThroughBlock !== realHead) await indexer.step();
      expect(indexer.status.balanceReads).toBeGreaterThan(0);
      expect(await dumpProjections(b.db)).toEqual(await dumpProjections(a.db));
    });
  });
});

describe('looking emitters up instead of naming every address does not change the result', () => {
  it('an index built in many steps, past the listed limit, equals one built naming every address', async () => {
    await withTwoDatabases(backends[0], async (a, b) => {
      await indexToHead(a.db, chain);
      // The node's head rises 25 blocks per poll, so each step starts a new feed over tokens and
      // pools that are only in the database; with a limit of 0 they are looked up, not named.
      let topicOnlyRequests = 0;
      const { client: risingHead, realHead } = await risingHeadClient(25, (method, params) => {
        const filter = params[0] as { address?: unknown; topics?: string[][] } | undefined;
        if (
          method === 'eth_getLogs' &&
          filter?.address === undefined &&
          filter?.topics?.[0]?.includes(topics.transfer)
        )
          topicOnlyRequests++;
      });
      const config = chainConfigFor(chain);
      const stepped = createIndexer({
        db: b.db,
        rpc: risingHead,
        chain: config,
        logger: silentLogger,
        listedAddressLimit: 0,
      });
      while (stepped.status.indexedThroughBlock !== realHead) await stepped.step();
      expect(topicOnlyRequests).toBeGreaterThan(10);
      expect(await dumpProjections(b.db)).toEqual(await dumpProjections(a.db));
    });
  });
});

describe.each(backends)('a write that appends while the one before it commits (%s)', (backend) => {
  it('commits after that one, and rolls back whole when it fails or the range does not follow the index', async () => {
    await withTwoDatabases(backend, async (a, b) => {
      await indexToHead(a.db, chain);
      const stored = await selectRows<{ address: string; pool_address: string | null }>(
        a.db,
        sql`select address, pool_address from tokens`,
      );
      const book = fixedAddressBook(
        new Set(stored.map((r) => r.address)),
        new Map(stored.flatMap((r) => (r.pool_address ? [[r.pool_address, r.address] as const] : []))),
      );
      const context = projectionContextFor(chain);
      const rpc = createRpcClient({ url: chain.anvil.rpcUrl });
      const head = Number(await chain.client.getBlockNumber());
      const start = chain.deployment.startBlock;
      const third = Math.floor((head - start) / 3);
      const bounds = [
        [start, start + third],
        [start + third + 1, start + 2 * third],
        [start + 2 * third + 1, head],
      ] as const;
      const ranges: RangeData[] = [];
      for (const [from, to] of bounds)
        ranges.push(
          await fetchRange(rpc, from, to, {
            factory: context.factory,
            book,
            tokens: new Set(),
            pools: new Map(),
          }),
        );
      // Folded ahead of any write, as the indexer does, each from the states the one before left.
      const carried = new Map<string, TokenState>();
      const balances = createBalanceBook(Number.POSITIVE_INFINITY);
      const traders = createTraderBook(Number.POSITIVE_INFINITY);
      const funding = createFundingReader(rpc);
      const plans: BatchPlan[] = [];
      for (const range of ranges) {
        const states = new Map(
          touchedTokens(range).flatMap((t) =>
            carried.has(t) ? [[t, carried.get(t) as TokenState] as const] : [],
          ),
        );
        await loadBalances(b.db, balances, range.events);
        const plan = foldRange(range, context, states, balances.view);
        await loadTraders(b.db, traders, plan);
        await loadTraderBalances(b.db, balances, plan);
        const funded = await funding.funded(plan, traders.view, defaultLabelParams);
        foldTraders(plan, traders.view, balances.view, defaultLabelParams, funded);
        for (const [address, state] of plan.states) carried.set(address, state);
        balances.remember(plan, plans.length + 1);
        rememberTraders(traders, plan, plans.length + 1);
        plans.push(plan);
      }
      for (const plan of plans) expect(plan.eventLines.length).toBeGreaterThan(0);
      await createPartitionKeeper(b.db).ensure(start, head);
      const [first, second, last] = plans as [BatchPlan, BatchPlan, BatchPlan];
      const appended = async () => {
        const [row] = await selectRows<{ trades: number; events: number }>(
          b.db,
          sql`select (select count(*) from trades)::int as trades, (select count(*) from chain_events)::int as events`,
        );
        return row;
      };

      // The write before failed: what this one appended is rolled back with it.
      const failed = Promise.reject(new Error('the write before failed'));
      failed.catch(() => {});
      await expect(writePlan(b.db, context, second, { after: failed })).rejects.toThrow(
        'the write before failed',
      );
      expect(await appended()).toEqual({ trades: 0, events: 0 });
      // The range does not continue the index (nothing is indexed yet).
      await expect(writePlan(b.db, context, second, { after: Promise.resolve(undefined) })).rejects.toThrow(
        /batch starts at/,
      );
      expect(await appended()).toEqual({ trades: 0, events: 0 });

      // Two at once: the second appends while the first writes, and commits after it.
      const writingFirst = writePlan(b.db, context, first);
      const writingSecond = writePlan(b.db, context, second, { after: writingFirst });
      expect((await writingFirst).status).toBe('applied');
      expect((await writingSecond).status).toBe('applied');
      expect((await readCheckpoint(b.db))?.indexedThroughBlock).toBe(second.to);

      // A range whose first block does not build on the indexed head: a reorg, nothing written.
      const before = await appended();
      const orphan = {
        ...last,
        first: { ...(last.first as NonNullable<BatchPlan['first']>), parentHash: `0x${'ab'.repeat(32)}` },
      };
      const refused = await writePlan(b.db, context, orphan, { after: Promise.resolve(undefined) });
      expect(refused.status).toBe('reorg');
      expect(await appended()).toEqual(before);
      // The write before found that reorg: this one, which builds on it, is refused the same way.
      const following = await writePlan(b.db, context, last, { after: Promise.resolve(refused) });
      expect(following).toEqual(refused);
      expect(await appended()).toEqual(before);
      // Already covered: skipped before appending anything.
      expect((await writePlan(b.db, context, second, { after: Promise.resolve(undefined) })).status).toBe(
        'skipped',
      );

      expect((await writePlan(b.db, context, last, { after: Promise.resolve(undefined) })).status).toBe(
        'applied',
      );
      expect(await dumpProjections(b.db)).toEqual(await dumpProjections(a.db));
    });
  });
});
