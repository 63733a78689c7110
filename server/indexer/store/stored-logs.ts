import { sql } from 'drizzle-orm';
import { copyBinaryIn, encodeBinaryCopy } from '../../db/binary-copy';
import { type Database, selectRows } from '../../db/client';
import type { FundingBlock } from '../project/funding';
import type { RangeData } from '../sync/range-algebra';
import { encodeChunk } from './log-chunk';

/**
 * The event store in the database: one `raw_log_chunks` row per projection write, holding the
 * raw logs of the write's events and the headers it held (log-chunk.ts). Written in the write's
 * transaction (project/write.ts), deleted with the writes a rollback undoes (reorg/rollback.ts).
 */

/**
 * What a range's write stores: the chunks of another schema's store when the range is exactly
 * those (stored-feed.ts: copied by the database, as they are), else a chunk of its events'
 * records (in chain order) and its headers.
 */
export function logChunkOf(
  range: RangeData,
  fundingBlocks: readonly FundingBlock[] = [],
): Uint8Array | { copyFrom: string } {
  if (range.storedIn !== undefined) return { copyFrom: range.storedIn };
  const records = range.events.map((event) => {
    if (!event.raw)
      throw new Error(`event at ${event.blockNumber}:${event.logIndex} carries no raw log to store`);
    return event.raw;
  });
  return encodeChunk({ headers: [...range.headers.values()], records, fundingBlocks });
}

/** Stores the chunk of a write of blocks `from`..`to` (`events` logs), in the write's transaction. */
export async function storeLogChunk(
  t: Database,
  from: number,
  to: number,
  events: number,
  body: Uint8Array | { copyFrom: string },
): Promise<void> {
  if (!(body instanceof Uint8Array)) {
    // A replayed range: the same chunks, copied as they are (compressed already, never in this process).
    await t.execute(sql`insert into raw_log_chunks (from_block, to_block, logs, body)
      select from_block, to_block, logs, body from ${sql.raw(`"${body.copyFrom.replaceAll('"', '""')}"`)}.raw_log_chunks
       where from_block >= ${from} and to_block <= ${to}`);
    return;
  }
  // Binary COPY: a parameter would carry the bytes as hex, twice their size, built and parsed.
  await copyBinaryIn(
    t,
    'raw_log_chunks',
    ['from_block', 'to_block', 'logs', 'body'],
    encodeBinaryCopy([[{ int8: from }, { int8: to }, { int4: events }, { bytes: body }]]),
  );
}

/**
 * Deletes the chunks of the writes a rollback to `target` undoes. A rollback undoes whole writes,
 * so no kept chunk reaches past `target`; one that did would hold logs of a replaced block, and
 * the rollback fails rather than keep them.
 */
export async function dropLogChunksAbove(t: Database, target: number): Promise<void> {
  await t.execute(sql`delete from raw_log_chunks where from_block > ${target}`);
  const [last] = await selectRows<{ to_block: string | number }>(
    t,
    sql`select to_block from raw_log_chunks where from_block <= ${target} order by from_block desc limit 1`,
  );
  if (last && Number(last.to_block) > target)
    throw new Error(`the stored logs of blocks up to ${last.to_block} straddle the rollback to ${target}`);
}
