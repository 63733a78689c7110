import { sql } from 'drizzle-orm';
import { type Database, selectRows } from '../../db/client';
import { type DecodedEvent, decodeLog } from '../decode/events';
import type { FundingBlock } from '../project/funding';
import type { BlockHeader, RangeData } from '../sync/range-algebra';
import type { RangeFeed } from '../sync/range-feed';
import { rawLogOf, readChunk } from './log-chunk';

export interface StoredFeedOptions {
  db: Database;
  /** The schema whose event store is read (the live index's, while a rebuild writes another). */
  schema: string;
  /** The first block: the first chunk must start there. */
  from: number;
  /** The last block: a chunk reaching past it is left to the RPC. */
  to: number;
  /** Pools graduated before `from` (pool → token); the feed adds those its graduations create. */
  pools: Map<string, string>;
  /** Hand ranges on once they hold this many events (about a write's). */
  eventsPerRange: number;
  /** Chunks read per query (each is one write's: up to about a write's events). */
  chunksPerRead?: number;
}

interface ChunkRow {
  from: number;
  to: number;
  logs: number;
  body: Buffer;
}

/**
 * Consecutive ranges read from an event store instead of the RPC (a rebuild: rebuild/), as the
 * range feed hands them on: decoded events in chain order, each carrying its record (so the
 * writes store the same logs again), the headers the chunks hold, and the pools of the swaps.
 * The feed ends at `to`, or before the first block no chunk starts at (a gap: a database indexed
 * before it kept logs has chunks only from then on); the RPC goes on from there. The next read is
 * in flight while a range is folded.
 */
export function createStoredFeed(options: StoredFeedOptions): RangeFeed {
  const { db, to, pools, eventsPerRange } = options;
  const limit = options.chunksPerRead ?? 8;
  const table = `"${options.schema.replaceAll('"', '""')}".raw_log_chunks`;
  let expected = options.from;
  let ended = false;
  let closed = false;
  let queued: ChunkRow[] = [];
  // base64: a bytea selected as it is comes as hex, twice its size (binary-copy.ts says why not COPY).
  const read = async (from: number): Promise<ChunkRow[]> =>
    (
      await selectRows<{
        from_block: string | number;
        to_block: string | number;
        logs: number;
        body: string;
      }>(
        db,
        sql`select from_block, to_block, logs, encode(body, 'base64') as body from ${sql.raw(table)}
             where from_block >= ${from} and from_block <= ${to} order by from_block limit ${limit}`,
      )
    ).map((row) => ({
      from: Number(row.from_block),
      to: Number(row.to_block),
      logs: Number(row.logs),
      body: Buffer.from(row.body, 'base64'),
    }));
  let reading: Promise<ChunkRow[]> | undefined = read(expected);
  reading.catch(() => {});

  /** The next chunk that continues the feed, or undefined at its end; `take` consumes it. */
  async function nextChunk(take = true): Promise<ChunkRow | undefined> {
    if (ended) return undefined;
    if (queued.length === 0) {
      const rows = reading ? await reading : [];
      reading = undefined;
      queued = rows;
      const last = rows.at(-1);
      if (rows.length === limit && last && last.to < to) {
        reading = read(last.to + 1);
        reading.catch(() => {});
      }
    }
    const chunk = queued[0];
    if (!chunk || chunk.from !== expected || chunk.to > to) {
      ended = true;
      return undefined;
    }
    if (take) {
      queued.shift();
      expected = chunk.to + 1;
    }
    return chunk;
  }

  return {
    rangeSize: 0,
    async next(): Promise<RangeData | undefined> {
      if (closed) return undefined;
      const events: DecodedEvent[] = [];
      const headers = new Map<number, BlockHeader>();
      const fundingBlocks: FundingBlock[] = [];
      let from: number | undefined;
      let last: number | undefined;
      // Whole chunks, no more than a write's events (one chunk alone may be more): the range is
      // written whole, and stores the same chunks (stored-logs.ts).
      for (;;) {
        const peeked = await nextChunk(false);
        if (!peeked || (from !== undefined && events.length + peeked.logs > eventsPerRange)) break;
        const chunk = (await nextChunk()) as ChunkRow;
        from ??= chunk.from;
        last = chunk.to;
        const decoded = readChunk(chunk.body);
        for (const header of decoded.headers) headers.set(header.number, header);
        fundingBlocks.push(...decoded.fundingBlocks);
        for (const log of decoded.logs) {
          const event = decodeLog(rawLogOf(log));
          if (!event) continue;
          event.raw = log.record;
          if (event.type === 'graduation') pools.set(event.pool, event.token);
          events.push(event);
        }
      }
      if (from === undefined || last === undefined) return undefined;
      return {
        from,
        to: last,
        events,
        headers,
        logCount: events.length,
        pools,
        storedIn: options.schema,
        fundingBlocks,
      };
    },
    close() {
      closed = true;
    },
  };
}

/** The pools of the tokens `db` holds (pool → token): what a feed resumed after them starts from. */
export async function storedPools(db: Database): Promise<Map<string, string>> {
  const rows = await selectRows<{ address: string; pool_address: string }>(
    db,
    sql`select address, pool_address from tokens where pool_address is not null`,
  );
  return new Map(rows.map((row) => [row.pool_address, row.address]));
}
