import { sql } from 'drizzle-orm';
import {
  type ActivityPage,
  activityKinds,
  type Chart,
  type ChartInput,
  type HoldersPage,
  type Pricing,
  type TradesPage,
} from '../../../../shared/api/tokens';
import { indexedHeadTimestampSql, indexedThroughBlockSql } from '../../../db/checkpoint';
import { selectRows } from '../../../db/client';
import { compiledRead, compiledReads } from '../../../db/compiled-read';
import { rowLimit } from '../../../db/row-limit';
import { candleIntervals } from '../../../db/schema';
import { AppError } from '../../../errors';
import { decodeCursorIfAny, encodeCursor, keysetPage } from '../../cursor';
import { amountAndAddressKey, chainPositionKey } from '../../cursor-keys';
import { type SerializedAnswer, serializedAnswer } from '../../rest/serialized';
import type { Context } from '../../trpc';
import { fillGaps } from './chart-fill';

const notFound = (address: string) => new AppError('not_found', `no launched token at ${address}`);

/**
 * Pricing in the detail's units. `source` follows the spec: `indexed_v3_market` only for a
 * graduated token whose latest indexed trade came from the pool.
 */
const pricingRow = compiledRead<
  {
    current_price: string;
    fully_diluted_value: string;
    lifecycle: string;
    last_trade_source: string | null;
    ib: string | number;
  },
  'address'
>(
  (param) =>
    sql`select current_price::text, fully_diluted_value::text, lifecycle, last_trade_source, ${indexedThroughBlockSql} as ib from tokens where address = ${param('address')}`,
);

export async function getPricing(ctx: Context, address: string): Promise<Pricing> {
  const [row] = await pricingRow(ctx.db, { address });
  if (!row) throw notFound(address);
  return {
    token_address: address,
    current_price: BigInt(row.current_price),
    fully_diluted_value: BigInt(row.fully_diluted_value),
    source:
      row.lifecycle === 'graduated' && row.last_trade_source === 'dex_v3'
        ? 'indexed_v3_market'
        : 'indexed_v3_curve',
    indexed_through_block: Number(row.ib),
  };
}

type CandleTuple = [number | string, string, string, string, string, string, number];

/**
 * Candles oldest first: the most recent `limit` buckets whose start lies in [from, to). With
 * `fill=previous`, buckets without trades between the first and the last point are filled with
 * the previous close (volume 0), and the series runs on to the indexed head's bucket.
 */
export async function getChart(ctx: Context, input: ChartInput): Promise<Chart> {
  const seconds = candleIntervals[input.interval];
  const from = input.from ?? 0;
  const to = input.to ?? Number.MAX_SAFE_INTEGER;
  const [row] = await selectRows<{
    ib: string | number;
    head_ts: string | number | null;
    points: CandleTuple[] | string | null;
    before: CandleTuple | string | null;
  }>(
    ctx.db,
    sql`select ${indexedThroughBlockSql} as ib,
               ${indexedHeadTimestampSql} as head_ts,
               (select json_agg(json_build_array(c.bucket_start, c.open::text, c.high::text, c.low::text, c.close::text, c.volume::text, c.trades) order by c.bucket_start)
                  from (select * from candles where token_address = t.address and interval_seconds = ${seconds}
                          and bucket_start >= ${from} and bucket_start < ${to}
                        order by bucket_start desc limit ${rowLimit(input.limit)}) c) as points,
               (select json_build_array(p.bucket_start, p.open::text, p.high::text, p.low::text, p.close::text, p.volume::text, p.trades)
                  from candles p where p.token_address = t.address and p.interval_seconds = ${seconds} and p.bucket_start < ${from}
                 order by p.bucket_start desc limit 1) as before
          from tokens t where t.address = ${input.address}`,
  );
  if (!row) throw notFound(input.address);
  const parse = <T>(value: T | string | null): T | null =>
    typeof value === 'string' ? (JSON.parse(value) as T) : value;
  const toPoint = (c: CandleTuple) => ({
    time: Number(c[0]),
    open: BigInt(c[1]),
    high: BigInt(c[2]),
    low: BigInt(c[3]),
    close: BigInt(c[4]),
    volume: BigInt(c[5]),
    trades: Number(c[6]),
  });
  let items = (parse(row.points) ?? []).map(toPoint);
  if (input.fill === 'previous')
    items = fillGaps(items, {
      ...input,
      seconds,
      previousClose: ((before) => (before ? BigInt(before[4]) : undefined))(parse(row.before)),
      headTimestamp: row.head_ts === null ? undefined : Number(row.head_ts),
    });
  return {
    token_address: input.address,
    interval: input.interval,
    indexed_through_block: Number(row.ib),
    items,
  };
}

/**
 * The chart as JSON text written by PostgreSQL, byte for byte what serializing {@link getChart}'s
 * answer writes (keys in the schema's order, amounts as decimal text): 1,000 candles parsed into
 * bigints and serialized again cost the web process ~5 ms of CPU, the database ~1 ms to write.
 * A gap-filled chart is computed here, so it takes the structured path.
 */
export async function getChartSerialized(ctx: Context, input: ChartInput): Promise<Chart | SerializedAnswer> {
  if (input.fill === 'previous') return getChart(ctx, input);
  const seconds = candleIntervals[input.interval];
  const from = input.from ?? 0;
  const to = input.to ?? Number.MAX_SAFE_INTEGER;
  const [row] = await selectRows<{ ib: string | number; body: string }>(
    ctx.db,
    sql`select t.ib, '{"token_address":"' || t.address || '","interval":"' || ${input.interval}::text
               || '","indexed_through_block":' || t.ib || ',"items":['
               || coalesce((select string_agg('{"time":' || c.bucket_start || ',"open":"' || c.open || '","high":"' || c.high
                                || '","low":"' || c.low || '","close":"' || c.close || '","volume":"' || c.volume
                                || '","trades":' || c.trades || '}', ',' order by c.bucket_start)
                             from (select * from candles where token_address = t.address and interval_seconds = ${seconds}
                                     and bucket_start >= ${from} and bucket_start < ${to}
                                   order by bucket_start desc limit ${rowLimit(input.limit)}) c), '')
               || ']}' as body
          from (select address, ${indexedThroughBlockSql} as ib from tokens where address = ${input.address}) t`,
  );
  if (!row) throw notFound(input.address);
  return serializedAnswer(row.body, Number(row.ib));
}

/** Page statements of trades, by `first|after:rows` (at most 2 × 101 texts). */
const tradeRows = compiledReads<Record<string, string | number | null>, 'address' | 'block' | 'log', string>(
  (param, variant) => {
    const [position, rows] = variant.split(':');
    return sql`select ${indexedThroughBlockSql} as ib, tk.address as token, tr.*
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral (
            select block_timestamp, trader, side, token_amount::text, reserve_amount::text, curve_value::text, protocol_fee::text,
                   creator_fee::text, source, block_number, transaction_index, transaction_hash, log_index
              from trades where token_address = ${param('address')}
               ${position === 'after' ? sql`and (block_number, log_index) < (${param('block')}, ${param('log')})` : sql``}
             order by block_number desc, log_index desc limit ${rowLimit(Number(rows))}) tr on true`;
  },
);

/** Trades in reverse chain order with the checkpoint they were read at, in one statement. */
export async function listTrades(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined },
): Promise<TradesPage> {
  const list = `trades:${input.address}`;
  const key = decodeCursorIfAny(input.cursor, list, chainPositionKey, ctx.cursorSecret);
  const rows = await tradeRows(
    ctx.db,
    { address: input.address, block: key?.[0] ?? null, log: key?.[1] ?? null },
    `${key ? 'after' : 'first'}:${input.limit + 1}`,
  );
  if (!rows[0]?.token) throw notFound(input.address);
  const trades = rows.filter((r) => r.block_number !== null);
  const page = keysetPage(
    trades,
    input.limit,
    (last, block) =>
      encodeCursor(list, [Number(last.block_number), Number(last.log_index)], ctx.cursorSecret, block),
    Number(rows[0].ib),
  );
  return {
    indexed_through_block: Number(rows[0].ib),
    items: page.rows.map((r) => ({
      block_timestamp: Number(r.block_timestamp),
      token_address: input.address,
      trader: String(r.trader),
      side: r.side === 'sell' ? 'sell' : 'buy',
      token_amount: BigInt(r.token_amount as string),
      reserve_amount: BigInt(r.reserve_amount as string),
      curve_value: BigInt(r.curve_value as string),
      protocol_fee: BigInt(r.protocol_fee as string),
      creator_fee: BigInt(r.creator_fee as string),
      source: r.source === 'dex_v3' ? 'dex_v3' : 'curve',
      block_number: Number(r.block_number),
      transaction_index: Number(r.transaction_index),
      transaction_hash: String(r.transaction_hash),
      log_index: Number(r.log_index),
    })),
    next_cursor: page.nextCursor,
  };
}

/**
 * Page statements of activity, by `kind|*`, `first|after` and rows (each text compiled once). One kind:
 * one walk down chain_events_token_kind_idx, however rare the kind is among the token's events
 * (a walk of the token's events filtered by kind read all 1.2M events of the busiest token to
 * find its one launch). Every kind: the walks of each kind, merged.
 */
const activityRows = compiledReads<
  Record<string, unknown> & { token: string | null; ib: string | number },
  'address' | 'block' | 'log',
  string
>((param, variant) => {
  const [kind, position, rows] = variant.split(':');
  const limit = rowLimit(Number(rows));
  const ofKind = (one: string) =>
    sql`(select kind, block_number, block_timestamp, block_hash, transaction_hash, transaction_index, log_index, data
           from chain_events where token_address = ${param('address')} and kind = ${one}
            ${position === 'after' ? sql`and (block_number, log_index) < (${param('block')}, ${param('log')})` : sql``}
          order by block_number desc, log_index desc limit ${limit})`;
  const events =
    kind === '*'
      ? sql`(select * from (${sql.join(activityKinds.map(ofKind), sql` union all `)}) k
            order by block_number desc, log_index desc limit ${limit})`
      : ofKind(kind as string);
  return sql`select tk.address as token, ${indexedThroughBlockSql} as ib, e.*
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral ${events} e on true`;
});

/** Decoded events of a token in reverse chain order, optionally of one kind. */
export async function listActivity(
  ctx: Context,
  input: {
    address: string;
    limit: number;
    cursor?: string | undefined;
    kind?: (typeof activityKinds)[number] | undefined;
  },
): Promise<ActivityPage> {
  const list = `activity:${input.address}:${input.kind ?? '*'}`;
  const key = decodeCursorIfAny(input.cursor, list, chainPositionKey, ctx.cursorSecret);
  const rows = await activityRows(
    ctx.db,
    { address: input.address, block: key?.[0] ?? null, log: key?.[1] ?? null },
    `${input.kind ?? '*'}:${key ? 'after' : 'first'}:${input.limit + 1}`,
  );
  if (!rows[0]?.token) throw notFound(input.address);
  const found = rows.filter((r) => r.block_number !== null);
  const page = keysetPage(
    found,
    input.limit,
    (last, block) =>
      encodeCursor(list, [Number(last.block_number), Number(last.log_index)], ctx.cursorSecret, block),
    Number(rows[0].ib),
  );
  return {
    items: page.rows.map((r) => ({
      kind: r.kind as (typeof activityKinds)[number],
      block_number: Number(r.block_number),
      block_timestamp: Number(r.block_timestamp),
      block_hash: String(r.block_hash),
      transaction_hash: String(r.transaction_hash),
      transaction_index: Number(r.transaction_index),
      log_index: Number(r.log_index),
      data: (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as Record<string, string>,
    })),
    next_cursor: page.nextCursor,
  };
}

/** Page statements of holders, by `first|after:rows` (at most 2 × 101 texts). */
const holderRows = compiledReads<
  {
    token: string | null;
    supply: string | null;
    wallet: string | null;
    balance: string | null;
    ib: string | number;
  },
  'address' | 'balance' | 'wallet',
  string
>((param, variant) => {
  const [position, rows] = variant.split(':');
  return sql`select tk.address as token, tk.total_supply::text as supply, b.wallet, b.balance::text as balance, ${indexedThroughBlockSql} as ib
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral (
            select wallet, balance from balances where token_address = ${param('address')} and kind = 0
             ${position === 'after' ? sql`and (balance, wallet) < (${param('balance')}::numeric, ${param('wallet')})` : sql``}
             order by balance desc, wallet desc limit ${rowLimit(Number(rows))}) b on true`;
});

/** Top holders (curve, pool, burn and launchpad contracts are not holders), largest first. */
export async function listHolders(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined },
): Promise<HoldersPage> {
  const list = `holders:${input.address}`;
  const key = decodeCursorIfAny(input.cursor, list, amountAndAddressKey, ctx.cursorSecret);
  const rows = await holderRows(
    ctx.db,
    { address: input.address, balance: key?.[0] ?? null, wallet: key?.[1] ?? null },
    `${key ? 'after' : 'first'}:${input.limit + 1}`,
  );
  if (!rows[0]?.token) throw notFound(input.address);
  const supply = BigInt(rows[0].supply ?? '0');
  const holders = rows.filter((r) => r.wallet !== null);
  const page = keysetPage(
    holders,
    input.limit,
    (last, block) => encodeCursor(list, [String(last.balance), String(last.wallet)], ctx.cursorSecret, block),
    Number(rows[0].ib),
  );
  return {
    items: page.rows.map((r) => {
      const balance = BigInt(r.balance as string);
      return {
        wallet: String(r.wallet),
        balance,
        share_bps: supply === 0n ? 0 : Number((balance * 10_000n) / supply),
      };
    }),
    next_cursor: page.nextCursor,
  };
}
