import { sql } from 'drizzle-orm';
import { bulkInsert, type ColumnType, jsonRecordset, textArray } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';
import { bumpReadVersion } from '../../db/read-version';
import { CHECKPOINT_ID, candleIntervals } from '../../db/schema';
import { normalizeSearchText, searchTermsFor } from '../../tokens/search-text';
import type { DecodedEvent } from '../decode/events';
import type { BlockHeader, RangeData } from '../sync/fetch-range';
import { refreshWindowMetrics } from './metrics';
import {
  applyCurveTrade,
  applyGraduation,
  applySwap,
  BURN_ADDRESS,
  balanceKind,
  bucketStart,
  type Candle,
  foldTrade,
  type TokenState,
  type TradeRow,
  tokenFromLaunch,
  ZERO_ADDRESS,
} from './state';
import { readTokenStates, tokenStateColumns, tokenStateRow } from './token-rows';

/** Addresses the projection classifies and the chain facts it needs beyond the logs. */
export interface ProjectionContext {
  chainId: number;
  factory: string;
  graduator: string;
  stable: string;
  startBlock: number;
  finalityDepth: number;
}

/** The chain moved under the index: the range does not extend the indexed head. */
export class ReorgDetectedError extends Error {
  override name = 'ReorgDetectedError';
  constructor(readonly atBlock: number) {
    super(`reorg detected at block ${atBlock}`);
  }
}

export interface Checkpoint {
  indexedThroughBlock: number;
  blockHash: string;
  blockTimestamp: number;
}

export interface BatchResult {
  skipped: boolean;
  events: number;
  trades: number;
  newTokens: string[];
  newPools: { pool: string; token: string }[];
}

const intervals = Object.values(candleIntervals);

/** Cumulative milliseconds per projection phase in this process; the benchmark prints them. */
export const projectionTimings: Record<string, number> = {};
const insert: typeof bulkInsert = (db, table, ...rest) =>
  timed(`write ${table}`, () => bulkInsert(db, table, ...rest));
async function timed<T>(phase: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    projectionTimings[phase] = (projectionTimings[phase] ?? 0) + performance.now() - started;
  }
}

export async function readCheckpoint(db: Database, lock = false): Promise<Checkpoint | undefined> {
  const rows = await selectRows<{
    indexed_through_block: string | number;
    block_hash: string;
    block_timestamp: string | number;
  }>(
    db,
    sql`select indexed_through_block, block_hash, block_timestamp from indexer_checkpoint where id = ${CHECKPOINT_ID} ${lock ? sql`for update` : sql``}`,
  );
  const row = rows[0];
  return row
    ? {
        indexedThroughBlock: Number(row.indexed_through_block),
        blockHash: row.block_hash,
        blockTimestamp: Number(row.block_timestamp),
      }
    : undefined;
}

function eventData(event: DecodedEvent): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(event)) {
    if (['type', 'blockNumber', 'blockHash', 'transactionHash', 'transactionIndex', 'logIndex'].includes(key))
      continue;
    data[key] = typeof value === 'string' ? value : String(value);
  }
  return data;
}

/**
 * Projects one fetched range into every chain-derived table and moves the checkpoint, in one
 * transaction. Re-applying a range the checkpoint already covers changes nothing.
 * @throws ReorgDetectedError when the range's first block does not build on the checkpoint.
 */
export async function applyBatch(
  db: Database,
  context: ProjectionContext,
  range: RangeData,
  pools: ReadonlyMap<string, string>,
): Promise<BatchResult> {
  return db.transaction(async (tx) => {
    const checkpoint = await readCheckpoint(tx as unknown as Database, true);
    const result: BatchResult = {
      skipped: false,
      events: range.events.length,
      trades: 0,
      newTokens: [],
      newPools: [],
    };
    if (checkpoint && checkpoint.indexedThroughBlock >= range.to)
      return { ...result, skipped: true, events: 0 };
    const expectedFrom = checkpoint ? checkpoint.indexedThroughBlock + 1 : context.startBlock;
    if (range.from !== expectedFrom)
      throw new Error(`batch starts at ${range.from} but the index continues at ${expectedFrom}`);
    const first = range.headers.get(range.from);
    if (checkpoint && first && first.parentHash !== checkpoint.blockHash)
      throw new ReorgDetectedError(range.from);
    const headOf = (n: number): BlockHeader => {
      const header = range.headers.get(n);
      if (!header) throw new Error(`missing header for block ${n}`);
      return header;
    };
    const t = tx as unknown as Database;

    // Everything this batch touches, read once.
    const poolToken = new Map(pools);
    for (const event of range.events) if (event.type === 'graduation') poolToken.set(event.pool, event.token);
    const launched = new Set(
      range.events.filter((e) => e.type === 'launch').map((e) => (e.type === 'launch' ? e.token : '')),
    );
    const touched = new Set<string>();
    for (const event of range.events) {
      const token =
        event.type === 'swap' ? poolToken.get(event.pool) : event.type === 'launch' ? undefined : event.token;
      if (token && !launched.has(token)) touched.add(token);
    }
    const states = await timed('read tokens', () => readTokenStates(t, [...touched]));

    const trades: Record<string, unknown>[] = [];
    const chainEvents: Record<string, unknown>[] = [];
    const balanceDeltas = new Map<string, bigint>();
    const candleTrades: {
      key: string;
      tokenAddress: string;
      intervalSeconds: number;
      bucketStart: number;
      price: bigint;
      volume: bigint;
      blockNumber: number;
      logIndex: number;
    }[] = [];
    const creatorDeltas = new Map<
      string,
      { launched: number; graduated: number; volume: bigint; first: number; last: number }
    >();
    const creatorDelta = (creator: string) => {
      let delta = creatorDeltas.get(creator);
      if (!delta) {
        delta = { launched: 0, graduated: 0, volume: 0n, first: Number.MAX_SAFE_INTEGER, last: 0 };
        creatorDeltas.set(creator, delta);
      }
      return delta;
    };
    const newTokenStates: TokenState[] = [];
    const newLaunches: Extract<DecodedEvent, { type: 'launch' }>[] = [];

    const addTrade = (token: TokenState, row: TradeRow, event: DecodedEvent, timestamp: number) => {
      trades.push({
        block_number: event.blockNumber,
        block_hash: event.blockHash,
        block_timestamp: timestamp,
        transaction_hash: event.transactionHash,
        transaction_index: event.transactionIndex,
        log_index: event.logIndex,
        token_address: row.tokenAddress,
        trader: row.trader,
        side: row.side,
        source: row.source,
        token_amount: row.tokenAmount,
        reserve_amount: row.reserveAmount,
        curve_value: row.curveValue,
        protocol_fee: row.protocolFee,
        creator_fee: row.creatorFee,
        price: row.price,
      });
      creatorDelta(token.creator).volume += row.reserveAmount;
      for (const intervalSeconds of intervals) {
        const start = bucketStart(timestamp, intervalSeconds);
        candleTrades.push({
          key: `${row.tokenAddress}:${intervalSeconds}:${start}`,
          tokenAddress: row.tokenAddress,
          intervalSeconds,
          bucketStart: start,
          price: row.price,
          volume: row.reserveAmount,
          blockNumber: event.blockNumber,
          logIndex: event.logIndex,
        });
      }
    };

    // The token's constructor mints to the curve before the factory emits TokenLaunched, so
    // launches must be known before their own transaction's earlier logs are folded.
    for (const event of range.events) {
      if (event.type !== 'launch') continue;
      const state = tokenFromLaunch(event);
      states.set(state.address, state);
      newTokenStates.push(state);
      newLaunches.push(event);
    }

    for (const event of range.events) {
      const timestamp = headOf(event.blockNumber).timestamp;
      let tokenAddress: string | undefined;
      if (event.type === 'launch') {
        const delta = creatorDelta(event.creator);
        delta.launched += 1;
        delta.first = Math.min(delta.first, timestamp);
        delta.last = Math.max(delta.last, timestamp);
        tokenAddress = event.token;
      } else if (event.type === 'trade') {
        const state = states.get(event.token);
        if (!state) continue;
        addTrade(state, applyCurveTrade(state, event, timestamp), event, timestamp);
        tokenAddress = event.token;
      } else if (event.type === 'graduation') {
        const state = states.get(event.token);
        if (!state) continue;
        applyGraduation(state, event, timestamp);
        creatorDelta(state.creator).graduated += 1;
        result.newPools.push({ pool: event.pool, token: event.token });
        tokenAddress = event.token;
      } else if (event.type === 'transfer') {
        if (!states.has(event.token)) continue;
        if (event.from !== ZERO_ADDRESS) {
          const key = `${event.token}:${event.from}`;
          balanceDeltas.set(key, (balanceDeltas.get(key) ?? 0n) - event.value);
        }
        const key = `${event.token}:${event.to}`;
        balanceDeltas.set(key, (balanceDeltas.get(key) ?? 0n) + event.value);
        tokenAddress = event.token;
      } else {
        const token = poolToken.get(event.pool);
        const state = token ? states.get(token) : undefined;
        if (!state) continue;
        addTrade(state, applySwap(state, event, context.stable, timestamp), event, timestamp);
        tokenAddress = state.address;
      }
      chainEvents.push({
        block_number: event.blockNumber,
        block_hash: event.blockHash,
        block_timestamp: timestamp,
        transaction_hash: event.transactionHash,
        transaction_index: event.transactionIndex,
        log_index: event.logIndex,
        token_address: tokenAddress,
        kind: event.type,
        data: eventData(event),
      });
    }
    result.trades = trades.length;
    result.newTokens = newTokenStates.map((s) => s.address);

    // Balances: fold deltas onto current rows, classify, count holder changes per token.
    const balanceKeys = [...balanceDeltas.keys()].map((key) => {
      const [token_address, wallet] = key.split(':') as [string, string];
      return { token_address, wallet };
    });
    const existingBalances = new Map<string, { balance: bigint; kind: number }>();
    if (balanceKeys.length > 0) {
      const rows = await timed('read balances', () =>
        selectRows<{ token_address: string; wallet: string; balance: string; kind: number }>(
          t,
          sql`select b.token_address, b.wallet, b.balance::text as balance, b.kind from balances b join ${jsonRecordset(balanceKeys, { token_address: 'text', wallet: 'text' })} on b.token_address = x.token_address and b.wallet = x.wallet`,
        ),
      );
      for (const row of rows)
        existingBalances.set(`${row.token_address}:${row.wallet}`, {
          balance: BigInt(row.balance),
          kind: Number(row.kind),
        });
    }
    const upserts: Record<string, unknown>[] = [];
    const deletions: { token_address: string; wallet: string }[] = [];
    for (const { token_address, wallet } of balanceKeys) {
      const key = `${token_address}:${wallet}`;
      const state = states.get(token_address);
      if (!state) continue;
      const before = existingBalances.get(key);
      const balance = (before?.balance ?? 0n) + (balanceDeltas.get(key) ?? 0n);
      const kind =
        wallet === state.curve
          ? balanceKind.curve
          : wallet === state.poolAddress
            ? balanceKind.pool
            : wallet === BURN_ADDRESS
              ? balanceKind.burn
              : wallet === context.graduator || wallet === context.factory
                ? balanceKind.launchpad
                : balanceKind.holder;
      const wasHolder = before !== undefined && before.balance > 0n && before.kind === balanceKind.holder;
      const isHolder = balance > 0n && kind === balanceKind.holder;
      state.holders += Number(isHolder) - Number(wasHolder);
      if (balance === 0n) {
        if (before) deletions.push({ token_address, wallet });
      } else {
        upserts.push({ token_address, wallet, balance, kind });
      }
    }

    // Candles: fold this batch's trades onto the stored buckets.
    const candleMap = new Map<string, Candle>();
    const candleKeys = [...new Map(candleTrades.map((c) => [c.key, c])).values()].map((c) => ({
      token_address: c.tokenAddress,
      interval_seconds: c.intervalSeconds,
      bucket_start: c.bucketStart,
    }));
    if (candleKeys.length > 0) {
      const rows = await selectRows<Record<string, string | number>>(
        t,
        sql`select c.token_address, c.interval_seconds, c.bucket_start, c.open::text, c.high::text, c.low::text, c.close::text, c.volume::text, c.trades, c.last_block_number, c.last_log_index
              from candles c join ${jsonRecordset(candleKeys, { token_address: 'text', interval_seconds: 'integer', bucket_start: 'bigint' })}
                on c.token_address = x.token_address and c.interval_seconds = x.interval_seconds and c.bucket_start = x.bucket_start`,
      );
      for (const row of rows) {
        const candle: Candle = {
          tokenAddress: String(row.token_address),
          intervalSeconds: Number(row.interval_seconds),
          bucketStart: Number(row.bucket_start),
          open: BigInt(row.open as string),
          high: BigInt(row.high as string),
          low: BigInt(row.low as string),
          close: BigInt(row.close as string),
          volume: BigInt(row.volume as string),
          trades: Number(row.trades),
          lastBlockNumber: Number(row.last_block_number),
          lastLogIndex: Number(row.last_log_index),
        };
        candleMap.set(`${candle.tokenAddress}:${candle.intervalSeconds}:${candle.bucketStart}`, candle);
      }
    }
    for (const trade of candleTrades)
      candleMap.set(trade.key, foldTrade(candleMap.get(trade.key), trade, trade));
    const touchedCandleKeys = new Set(candleTrades.map((c) => c.key));

    // Writes.
    if (newTokenStates.length > 0) {
      await insert(
        t,
        'tokens',
        {
          ...tokenStateColumns,
          name: 'text',
          symbol: 'text',
          name_search: 'text',
          symbol_search: 'text',
          decimals: 'smallint',
          total_supply: 'numeric',
          metadata_hash: 'text',
          created_block: 'bigint',
          created_block_hash: 'text',
          created_at: 'bigint',
          created_transaction_hash: 'text',
          created_transaction_index: 'integer',
          created_log_index: 'integer',
          curve_address: 'text',
          creator: 'text',
          curve_supply: 'numeric',
          protocol_fee_bps: 'integer',
          creator_fee_bps: 'integer',
        },
        newLaunches.map((launch, i) => {
          const state = newTokenStates[i] as TokenState;
          return {
            ...tokenStateRow(state),
            name: launch.name,
            symbol: launch.symbol,
            name_search: normalizeSearchText(launch.name),
            symbol_search: normalizeSearchText(launch.symbol),
            decimals: 18,
            total_supply: launch.totalSupply,
            metadata_hash: launch.metadataHash,
            created_block: launch.blockNumber,
            created_block_hash: launch.blockHash,
            created_at: headOf(launch.blockNumber).timestamp,
            created_transaction_hash: launch.transactionHash,
            created_transaction_index: launch.transactionIndex,
            created_log_index: launch.logIndex,
            curve_address: launch.curve,
            creator: launch.creator,
            curve_supply: launch.realTokenReserve,
            protocol_fee_bps: launch.protocolFeeBps,
            creator_fee_bps: launch.creatorFeeBps,
          };
        }),
        'on conflict (address) do nothing',
      );
      await insert(
        t,
        'token_search_terms',
        { term: 'text', token_address: 'text', kind: 'smallint' },
        newLaunches.flatMap((launch) =>
          searchTermsFor(launch.name, launch.symbol).map(({ term, kind }) => ({
            term,
            kind,
            token_address: launch.token,
          })),
        ),
        'on conflict do nothing',
      );
      // Operator moderation and finalized metadata live outside chain data; re-apply them.
      const fresh = newLaunches.map((launch) => launch.token);
      await t.execute(
        sql`update tokens set excluded = true where address = any(${textArray(fresh)}) and address in (select token_address from token_exclusions)`,
      );
      await t.execute(sql`update tokens t set draft_id = d.id,
          has_links = coalesce(d.website_url, d.x_url, d.telegram_url, d.discord_url) is not null
        from metadata_drafts d where d.bound_token_address = t.address and t.address = any(${textArray(fresh)})`);
    }
    const existing = [...touched]
      .map((address) => states.get(address))
      .filter((s): s is TokenState => s !== undefined);
    if (existing.length > 0) {
      const assignments = Object.keys(tokenStateColumns)
        .filter((column) => column !== 'address')
        .map((column) => `"${column}" = x."${column}"`)
        .join(', ');
      await t.execute(
        sql`update tokens set ${sql.raw(assignments)} from ${jsonRecordset(existing.map(tokenStateRow), tokenStateColumns)} where tokens.address = x.address`,
      );
    }
    const provenanceColumns: Record<string, ColumnType> = {
      block_number: 'bigint',
      block_hash: 'text',
      block_timestamp: 'bigint',
      transaction_hash: 'text',
      transaction_index: 'integer',
      log_index: 'integer',
      token_address: 'text',
    };
    await insert(
      t,
      'trades',
      {
        ...provenanceColumns,
        trader: 'text',
        side: 'text',
        source: 'text',
        token_amount: 'numeric',
        reserve_amount: 'numeric',
        curve_value: 'numeric',
        protocol_fee: 'numeric',
        creator_fee: 'numeric',
        price: 'numeric',
      },
      // No conflict clause: the checkpoint guard above makes a re-insert impossible, and if one
      // happened anyway the primary key would fail the batch loudly instead of hiding it.
      trades,
    );
    await insert(t, 'chain_events', { ...provenanceColumns, kind: 'text', data: 'jsonb' }, chainEvents);
    await insert(
      t,
      'balances',
      { token_address: 'text', wallet: 'text', balance: 'numeric', kind: 'smallint' },
      upserts,
      'on conflict (token_address, wallet) do update set balance = excluded.balance, kind = excluded.kind',
    );
    if (deletions.length > 0) {
      await t.execute(
        sql`delete from balances b using ${jsonRecordset(deletions, { token_address: 'text', wallet: 'text' })} where b.token_address = x.token_address and b.wallet = x.wallet`,
      );
    }
    await insert(
      t,
      'candles',
      {
        token_address: 'text',
        interval_seconds: 'integer',
        bucket_start: 'bigint',
        open: 'numeric',
        high: 'numeric',
        low: 'numeric',
        close: 'numeric',
        volume: 'numeric',
        trades: 'integer',
        last_block_number: 'bigint',
        last_log_index: 'integer',
      },
      [...touchedCandleKeys].map((key) => {
        const c = candleMap.get(key) as Candle;
        return {
          token_address: c.tokenAddress,
          interval_seconds: c.intervalSeconds,
          bucket_start: c.bucketStart,
          open: c.open,
          high: c.high,
          low: c.low,
          close: c.close,
          volume: c.volume,
          trades: c.trades,
          last_block_number: c.lastBlockNumber,
          last_log_index: c.lastLogIndex,
        };
      }),
      `on conflict (token_address, interval_seconds, bucket_start) do update set open = excluded.open, high = excluded.high,
         low = excluded.low, close = excluded.close, volume = excluded.volume, trades = excluded.trades,
         last_block_number = excluded.last_block_number, last_log_index = excluded.last_log_index`,
    );
    await insert(
      t,
      'creators',
      {
        address: 'text',
        tokens_launched: 'integer',
        tokens_graduated: 'integer',
        first_launch_at: 'bigint',
        last_launch_at: 'bigint',
        total_volume: 'numeric',
      },
      [...creatorDeltas].map(([address, d]) => ({
        address,
        tokens_launched: d.launched,
        tokens_graduated: d.graduated,
        first_launch_at: d.first === Number.MAX_SAFE_INTEGER ? d.last : d.first,
        last_launch_at: d.last,
        total_volume: d.volume,
      })),
      `on conflict (address) do update set tokens_launched = creators.tokens_launched + excluded.tokens_launched,
         tokens_graduated = creators.tokens_graduated + excluded.tokens_graduated,
         first_launch_at = case when excluded.tokens_launched > 0 then least(creators.first_launch_at, excluded.first_launch_at) else creators.first_launch_at end,
         last_launch_at = case when excluded.tokens_launched > 0 then greatest(creators.last_launch_at, excluded.last_launch_at) else creators.last_launch_at end,
         total_volume = creators.total_volume + excluded.total_volume`,
    );

    const head = headOf(range.to);
    const tradedTokens = [...new Set(trades.map((trade) => trade.token_address as string))];
    await timed('window metrics', () =>
      refreshWindowMetrics(t, {
        headTimestamp: head.timestamp,
        previousHeadTimestamp: checkpoint?.blockTimestamp ?? 0,
        tokens: tradedTokens,
      }),
    );

    await insert(
      t,
      'recent_blocks',
      { number: 'bigint', hash: 'text', parent_hash: 'text', timestamp: 'bigint' },
      [...range.headers.values()].map((h) => ({
        number: h.number,
        hash: h.hash,
        parent_hash: h.parentHash,
        timestamp: h.timestamp,
      })),
      'on conflict (number) do update set hash = excluded.hash, parent_hash = excluded.parent_hash, timestamp = excluded.timestamp',
    );
    await t.execute(sql`delete from recent_blocks where number < ${range.to - context.finalityDepth}`);
    await t.execute(sql`insert into indexer_checkpoint (id, chain_id, indexed_through_block, block_hash, block_timestamp, updated_at)
      values (${CHECKPOINT_ID}, ${context.chainId}, ${range.to}, ${head.hash}, ${head.timestamp}, now())
      on conflict (id) do update set indexed_through_block = excluded.indexed_through_block, block_hash = excluded.block_hash,
        block_timestamp = excluded.block_timestamp, updated_at = excluded.updated_at`);
    await bumpReadVersion(t);
    return result;
  });
}
