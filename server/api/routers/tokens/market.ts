import { sql } from 'drizzle-orm';
import {
  type ActivityPage,
  activityKinds,
  type Chart,
  type ChartInput,
  chart,
  chartPoint,
} from '../../../../shared/api/tokens';
import { fromWire } from '../../../../shared/api/wire';
import { indexedHeadTimestampSql, indexedThroughBlockSql } from '../../../db/checkpoint';
import { selectRows } from '../../../db/client';
import { compiledReads } from '../../../db/compiled-read';
import { rowLimit } from '../../../db/row-limit';
import { candleIntervals } from '../../../db/schema';
import { AppError } from '../../../errors';
import { decodeCursorIfAny, encodeCursor, keysetPage } from '../../cursor';
import { chainPositionKey } from '../../cursor-keys';
import { jsonSql } from '../../rest/json-sql';
import { type SerializedAnswer, serializedAnswer } from '../../rest/serialized';
import type { Context } from '../../trpc';
import { fillGaps } from './chart-fill';

const notFound = (address: string) => new AppError('not_found', `no launched token at ${address}`);

/**
 * Candles oldest first: the most recent `limit` buckets whose start lies in [from, to), written
 * as JSON by PostgreSQL (1,000 candles parsed into bigints and serialized again cost the web
 * process ~5 ms of CPU, the database ~1 ms to write). With `fill=previous`, buckets without trades
 * between the first and the last point are filled with the previous close (volume 0), and the
 * series runs on to the indexed head's bucket: that answer is read back and filled here.
 */
export async function getChart(ctx: Context, input: ChartInput): Promise<Chart | SerializedAnswer> {
  const seconds = candleIntervals[input.interval];
  const from = input.from ?? 0;
  const to = input.to ?? Number.MAX_SAFE_INTEGER;
  const filled = input.fill === 'previous';
  const [row] = await selectRows<{
    ib: string | number;
    head_ts: string | number | null;
    before: string | null;
    body: string;
  }>(
    ctx.db,
    sql`select t.ib, t.head_ts, t.before, ${jsonSql(chart, {
      token_address: 't.address',
      interval: sql`${input.interval}::text`,
      indexed_through_block: 't.ib',
      items: sql`'[' || coalesce((select string_agg(${pointJson}, ',' order by c.bucket_start)
                from (select * from candles where token_address = t.address and interval_seconds = ${seconds}
                        and bucket_start >= ${from} and bucket_start < ${to}
                      order by bucket_start desc limit ${rowLimit(input.limit)}) c), '') || ']'`,
    })} as body
          from (select address, ${indexedThroughBlockSql} as ib,
                       ${filled ? indexedHeadTimestampSql : sql`null`} as head_ts,
                       ${
                         filled
                           ? sql`(select p.close::text from candles p where p.token_address = tokens.address
                                   and p.interval_seconds = ${seconds} and p.bucket_start < ${from}
                                   order by p.bucket_start desc limit 1)`
                           : sql`null`
                       } as before
                  from tokens where address = ${input.address}) t`,
  );
  if (!row) throw notFound(input.address);
  if (!filled) return serializedAnswer(row.body, Number(row.ib));
  const answer = fromWire(chart, JSON.parse(row.body));
  answer.items = fillGaps(answer.items, {
    ...input,
    seconds,
    previousClose: row.before === null ? undefined : BigInt(row.before),
    headTimestamp: row.head_ts === null ? undefined : Number(row.head_ts),
  });
  return answer;
}

const pointJson = jsonSql(chartPoint, {
  time: 'c.bucket_start',
  open: 'c.open',
  high: 'c.high',
  low: 'c.low',
  close: 'c.close',
  volume: 'c.volume',
  trades: 'c.trades',
});

/**
 * Page statements of activity, by `kind|*`, `first|after` and rows (each text compiled once). One kind:
 * one walk down chain_events_token_kind_idx, however rare the kind is among the token's events
 * (a walk of the token's events filtered by kind read all 1.2M events of the busiest token to
 * find its one launch). Every kind: the walks of each kind, merged. The events are the looked-up
 * token row's (`tk.address`), not the parameter's: one plan for every token, where the parameter
 * made PostgreSQL plan anew per execution for a busy token (json-reads.ts, token pages).
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
           from chain_events where token_address = tk.address and kind = ${one}
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
