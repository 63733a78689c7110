import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { fundedAddress, GENESIS, startTestChain, type TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import {
  clearIndex,
  dumpProjections,
  dumpStoredLogs,
  indexToHead,
  projectionContextFor,
  withTwoDatabases,
} from '../../test/indexer/harness';
import { type ChainView, readChainView } from '../../test/oracle/chain-view';
import { expectedTables } from '../../test/oracle/tables';
import type { Ledger } from '../chain/simulator/ledger';
import { type DatabaseHandle, selectRows } from '../db/client';
import type { RawLog } from './decode/events';
import { applyBatch, readCheckpoint } from './project/apply-batch';
import { createRpcClient } from './rpc/client';
import { fixedAddressBook } from './sync/address-book';
import { fetchRange } from './sync/fetch-range';

const backends = await availableBackends();
let chain: TestChain;
let ledger: Ledger;

let expected: ReturnType<typeof expectedTables>;
let view: ChainView;

simulatedChainForTests({ seed: 11, launches: 30, actions: 350 }, async (started) => {
  ({ chain, ledger } = started);
  // Nothing below writes to the chain: one oracle of the settled chain serves every test.
  view = await readChainView(chain.client, chain.deployment.contracts, ledger.startBlock);
  expected = expectedTables(view);
});

type Row = Record<string, string | number | null>;

describe.each(backends)('indexer on the simulator chain (%s)', (backend) => {
  let handle: DatabaseHandle;

  testDatabaseForTests(backend, async (opened) => {
    handle = opened.handle;
    // Small ranges: many batches, so state carried across batch boundaries is exercised too.
    await indexToHead(handle.db, chain, { initialRange: 7, chain: { maxRange: 40 } });
  });

  it('indexes every launch, trade, graduation and swap of the ledger', async () => {
    expect(ledger.summary.graduations).toBeGreaterThanOrEqual(2);
    expect(ledger.summary.dexSwaps).toBeGreaterThan(0);
    const head = await chain.client.getBlock();
    const checkpoint = await readCheckpoint(handle.db);
    expect(checkpoint?.indexedThroughBlock).toBe(Number(head.number));
    expect(checkpoint?.blockHash).toBe(head.hash);
  });

  it('trades equal the ledger, field by field, in chain order (amounts normalized to 18 decimals)', async () => {
    const rows = await selectRows<Row>(
      handle.db,
      sql`select block_number, log_index, token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price from trades order by block_number, log_index`,
    );
    expect(rows.map((r) => Object.values(r).map(String).join('|'))).toEqual(expected.trades);
    expect(expected.trades.some((t) => t.includes('|dex_v3|'))).toBe(true);
  });

  it('balances equal a replay of the ledger transfers; zero balances have no row', async () => {
    const rows = await selectRows<Row>(
      handle.db,
      sql`select token_address, wallet, balance::text as balance from balances`,
    );
    const actual = new Map(rows.map((r) => [`${r.token_address}:${r.wallet}`, BigInt(r.balance as string)]));
    expect(actual).toEqual(expected.balances);
  });

  it('candles of every interval equal the ledger trades bucketed independently', async () => {
    const rows = await selectRows<Row>(
      handle.db,
      sql`select token_address, interval_seconds, bucket_start, open::text, high::text, low::text, close::text, volume::text, trades from candles`,
    );
    const actual = new Map(
      rows.map((r) => [
        `${r.token_address}:${r.interval_seconds}:${r.bucket_start}`,
        {
          open: BigInt(r.open as string),
          high: BigInt(r.high as string),
          low: BigInt(r.low as string),
          close: BigInt(r.close as string),
          volume: BigInt(r.volume as string),
          trades: Number(r.trades),
        },
      ]),
    );
    expect(actual).toEqual(expected.candles);
    expect(new Set(rows.map((r) => Number(r.interval_seconds)))).toEqual(
      new Set([60, 300, 900, 3600, 14400, 86400, 604800]),
    );
  });

  it('token metrics, lifecycle, holders and 24 h window equal the ledger at the indexed head', async () => {
    const rows = await selectRows<Row>(
      handle.db,
      sql`select address, lifecycle, pool_address, current_price::text, market_cap::text, fully_diluted_value::text, trade_count,
                 total_volume::text, last_trade_at, holders, volume_24h::text, trades_24h, traders_24h, trending_score, progress_bps from tokens`,
    );
    expect(rows).toHaveLength(expected.tokens.size);
    for (const row of rows) {
      const want = expected.tokens.get(String(row.address));
      expect(want, String(row.address)).toBeDefined();
      if (!want) continue;
      expect({
        lifecycle: row.lifecycle,
        pool: row.pool_address,
        currentPrice: BigInt(row.current_price as string),
        marketCap: BigInt(row.market_cap as string),
        fdv: BigInt(row.fully_diluted_value as string),
        tradeCount: Number(row.trade_count),
        totalVolume: BigInt(row.total_volume as string),
        lastTradeAt: row.last_trade_at === null ? null : Number(row.last_trade_at),
        holders: Number(row.holders),
        volume24h: BigInt(row.volume_24h as string),
        trades24h: Number(row.trades_24h),
        traders24h: Number(row.traders_24h),
        trendingScore: Number(row.trending_score),
        progressBps: Number(row.progress_bps),
      }).toEqual({ ...want, trendingScore: expect.closeTo(want.trendingScore, 9) });
    }
  });

  it('creators aggregate launches, graduations and volume', async () => {
    const rows = await selectRows<Row>(
      handle.db,
      sql`select address, tokens_launched, tokens_graduated, total_volume::text from creators`,
    );
    const actual = new Map(
      rows.map((r) => [
        String(r.address),
        {
          launched: Number(r.tokens_launched),
          graduated: Number(r.tokens_graduated),
          volume: BigInt(r.total_volume as string),
        },
      ]),
    );
    expect(actual).toEqual(expected.creators);
  });

  it('every decoded event is in chain_events with provenance', async () => {
    const launchpadLogs = ledger.actions.flatMap((a) =>
      a.logs
        .filter((l) => ['TokenLaunched', 'Trade', 'Graduated', 'Swap'].includes(l.eventName))
        .map((l) => `${a.blockNumber}:${l.logIndex}`),
    );
    const rows = await selectRows<Row>(
      handle.db,
      sql`select block_number, log_index, kind, transaction_hash, block_hash from chain_events where kind <> 'transfer'`,
    );
    expect(rows.map((r) => `${r.block_number}:${r.log_index}`).sort()).toEqual(launchpadLogs.sort());
    for (const row of rows) {
      expect(row.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(row.block_hash).toMatch(/^0x[0-9a-f]{64}$/);
    }
  });

  it('the event store holds every log the projections read, once, as the node served it, in chunks covering the index block for block', async () => {
    const stored = await dumpStoredLogs(handle.db);
    expect(stored.contiguous).toBe(true);
    expect(stored.chunks[0]?.[0]).toBe(chain.deployment.startBlock);
    expect(stored.chunks.at(-1)?.[1]).toBe((await readCheckpoint(handle.db))?.indexedThroughBlock);
    // The oracle's selection of launchpad logs (viem's decoder, not ours), in chain order.
    const key = (block: number | string, index: number | string) => `${Number(block)}:${Number(index)}`;
    expect(stored.logs.map((log) => key(log.blockNumber, log.logIndex))).toEqual(
      view.logs.map((log) => key(log.blockNumber, log.logIndex)),
    );
    const node = await createRpcClient({ url: chain.anvil.rpcUrl }).request<RawLog[]>('eth_getLogs', [
      { fromBlock: `0x${chain.deployment.startBlock.toString(16)}`, toBlock: 'latest' },
    ]);
    const served = new Map(node.map((log) => [key(log.blockNumber, log.logIndex), log]));
    const lower = (hex: string) => hex.toLowerCase();
    for (const log of stored.logs) {
      const raw = served.get(key(log.blockNumber, log.logIndex));
      expect(log).toEqual({
        address: lower(raw?.address ?? ''),
        topics: raw?.topics.map(lower),
        data: lower(raw?.data ?? ''),
        blockNumber: raw?.blockNumber,
        blockHash: lower(raw?.blockHash ?? ''),
        transactionHash: lower(raw?.transactionHash ?? ''),
        transactionIndex: raw?.transactionIndex,
        logIndex: raw?.logIndex,
      });
    }
  });

  it('indexing the same range twice changes nothing', async () => {
    const before = await dumpProjections(handle.db);
    const rpc = createRpcClient({ url: chain.anvil.rpcUrl });
    const head = Number(await chain.client.getBlockNumber());
    const tokens = new Set(
      (await selectRows<{ address: string }>(handle.db, sql`select address from tokens`)).map(
        (r) => r.address,
      ),
    );
    const range = await fetchRange(rpc, chain.deployment.startBlock, head, {
      factory: chain.deployment.contracts.factory.toLowerCase(),
      book: fixedAddressBook(tokens),
      tokens: new Set(),
      pools: new Map(),
    });
    const result = await applyBatch(handle.db, projectionContextFor(chain), range);
    expect(result.status).toBe('skipped');
    await indexToHead(handle.db, chain);
    expect(await dumpProjections(handle.db)).toEqual(before);
  });
});

describe('indexer batch size does not change the result', () => {
  it('one big range, many small ranges and ranges cut by answer size give identical projections', async () => {
    await withTwoDatabases(backends[0], async (a, b) => {
      // One range whose activity is asked in block slices at once, against ranges of three
      // blocks each asked in one request.
      await indexToHead(a.db, chain, { initialRange: 50_000, rangeSlices: 4 });
      await indexToHead(b.db, chain, { initialRange: 3, chain: { maxRange: 3 }, rangeSlices: 1 });
      expect(await dumpProjections(b.db)).toEqual(await dumpProjections(a.db));
      // Balance history was cut into segments (4 holder rows at least here, test/indexer/harness.ts):
      // the small ranges wrote the cuts of wallets they did not move from `balances`, the big
      // range wrote them all from the fold, and the rows are the same.
      const [history] = await selectRows<{ segments: number }>(
        b.db,
        sql`select count(distinct (token_address, segment))::int as segments from balance_history`,
      );
      expect(history?.segments).toBeGreaterThan(30);
      // A client that cannot stream (requestOrStream is optional) refusing answers over 16 kB:
      // the ranges shrink until theirs fit (a single block is always read whole), and the result
      // is the same.
      await clearIndex(b.db);
      const refusing = createRpcClient({ url: chain.anvil.rpcUrl, maxResponseBytes: 16_384 });
      const capped = await indexToHead(b.db, chain, {
        initialRange: 50_000,
        client: {
          request: (method, params, options) => refusing.request(method, params, options),
          batch: (requests) => refusing.batch(requests),
        },
      });
      expect(capped.status.batches).toBeGreaterThan(10);
      expect(await dumpProjections(b.db)).toEqual(await dumpProjections(a.db));
      // Answers over 16 kB are read as they arrive and handed on in parts of 40 events: the
      // same projections again, through many streamed parts.
      const unbounded = createRpcClient({ url: chain.anvil.rpcUrl });
      const bounded = createRpcClient({ url: chain.anvil.rpcUrl, maxResponseBytes: 16_384 });
      await clearIndex(b.db);
      const streamed = await indexToHead(b.db, chain, {
        initialRange: 50_000,
        client: {
          request: (method, params, options) => unbounded.request(method, params, options),
          batch: (requests) => unbounded.batch(requests),
          requestOrStream: (method, params, options) => bounded.requestOrStream(method, params, options),
        },
        streamedPartEvents: 40,
      });
      expect(streamed.status.streamedParts).toBeGreaterThan(5);
      expect(await dumpProjections(b.db)).toEqual(await dumpProjections(a.db));
    });
  });
});

describe.each(backends)('a balance that leaves and comes back within one range (%s)', (backend) => {
  it('closes the intervals in between and reopens the row at its last move, as ranges of one block do', async () => {
    const chain = await startTestChain({ genesisTimestamp: GENESIS });
    try {
      await withTwoDatabases(backend, async (whole, blocks) => {
        const [a, b] = [await fundedAddress(chain, 1), await fundedAddress(chain, 2)];
        const { token } = await chain.actions.launch({
          creator: chain.deployer,
          name: 'Boomerang',
          symbol: 'BACK',
          supply: 10n ** 27n,
          metadataHash: `0x${'42'.repeat(32)}`,
        });
        await chain.actions.buy({ trader: a, token, value: 10n ** 17n });
        await indexToHead(whole.db, chain);
        const held = await chain.actions.balanceOf(token, a);
        // All of it out and back, then half of it out and back, each in a block of its own: a's
        // balance after them is its balance before, its row's last change the last block.
        await chain.actions.transfer({ from: a, token, to: b, amount: held });
        await chain.actions.transfer({ from: b, token, to: a, amount: held });
        await chain.actions.transfer({ from: a, token, to: b, amount: held / 2n });
        const last = await chain.actions.transfer({ from: b, token, to: a, amount: held / 2n });
        // The four transfers in one range, against ranges of one block each.
        await indexToHead(whole.db, chain, { initialRange: 50_000 });
        await indexToHead(blocks.db, chain, { initialRange: 1, chain: { maxRange: 1 } });
        const [row] = await selectRows<{ since: string | number }>(
          whole.db,
          sql`select since_block as since from balances where token_address = ${token.toLowerCase()} and wallet = ${a.toLowerCase()}`,
        );
        expect(Number(row?.since)).toBe(Number(last.receipt.blockNumber));
        expect(await dumpProjections(whole.db)).toEqual(await dumpProjections(blocks.db));
      });
    } finally {
      await chain.stop();
    }
  }, 120_000);
});
