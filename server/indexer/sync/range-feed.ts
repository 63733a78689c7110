import type { RawLog } from '../decode/events';
import { type RpcClient, RpcResponseTooLargeError } from '../rpc/client';
import { type AddressSets, extendAddressSets, fetchFactoryLogs } from './activity-filter';
import { fetchRangeParts, type RangeParts } from './fetch-range';
import type { RangeData } from './range-algebra';

export interface RangeFeedOptions {
  rpc: RpcClient;
  /** Address sets as of the block before `from`. */
  sets: AddressSets;
  from: number;
  to: number;
  /** Blocks per eth_getLogs range to start with; adapted to the log density as ranges arrive. */
  rangeSize: number;
  maxRange: number;
  /** Aim for about this many logs per range. */
  targetLogs: number;
  /** Ranges fetched ahead of the consumer (each holds at most about `targetLogs` logs). */
  concurrency: number;
  /** Every block from here on is remembered with its header (see fetchRangeParts). */
  everyHeaderFrom: number;
  /** Events per part of a range whose answer is streamed (default STREAMED_PART_EVENTS). */
  streamedPartEvents?: number;
  /** Block slices a range's activity is asked in (default RANGE_SLICES). */
  rangeSlices?: number;
}

export interface RangeFeed {
  /** The next range in chain order, or undefined past `to`. A failed fetch rejects here. */
  next(): Promise<RangeData | undefined>;
  /** The adapted range size, for the next feed. */
  readonly rangeSize: number;
  /** Stops the answers still being read (a feed abandoned before its end). */
  close(): void;
}

/** One range of the feed; its fetch starts when it comes within `concurrency` of the front. */
interface Entry {
  from: number;
  to: number;
  /** Address sets including the range's own launches and graduations. */
  sets: Promise<AddressSets>;
  factoryLogs: Promise<RawLog[]>;
  data?: Promise<RangeParts>;
  /** The entry's next part, read ahead of its consumer. */
  part?: Promise<RangeData | undefined>;
}

/**
 * Parts a range is cut into when its answer was too large: each about a quarter of the limit,
 * judged from the declared length (eight parts when the node declared none). A quarter keeps
 * the parts in flight well under the limit together (at --scale 3, parts the size of the limit
 * took the indexer to 1.2 GB) and near the writer's 25k events (parts of the 10k-log target
 * made 21 small writes of the benchmark's dense stretch instead of 8, 10–15 % slower).
 */
function partsFor(error: RpcResponseTooLargeError, blocks: number): number {
  const parts = error.declaredBytes === undefined ? 8 : Math.ceil((error.declaredBytes * 4) / error.limit);
  return Math.min(blocks, Math.max(2, parts));
}

/**
 * Fetches consecutive block ranges ahead of their consumer, several in flight. A range's
 * Transfers and Swaps are filtered by the tokens and pools known before it plus those its own
 * factory logs name, so each range waits for the factory logs of the ranges before it (small
 * and quick) but not for their Transfers, Swaps or headers. A range whose answer is too large to
 * read (RpcResponseTooLargeError) is cut in place into parts sized from the answer's declared
 * length, fetched like any range (`concurrency` at a time), and later ranges start at the parts'
 * size: the ranges before and after it in flight are kept.
 */
export function createRangeFeed(options: RangeFeedOptions): RangeFeed {
  const { rpc, to, maxRange, targetLogs, concurrency } = options;
  let size = Math.max(1, Math.min(options.rangeSize, maxRange));
  let nextFrom = options.from;
  let sets: Promise<AddressSets> = Promise.resolve(options.sets);
  const queue: Entry[] = [];

  const begin = (entry: Entry) => {
    if (entry.data) return;
    entry.data = Promise.all([entry.sets, entry.factoryLogs]).then(([known, logs]) =>
      fetchRangeParts(rpc, entry.from, entry.to, logs, known, {
        everyHeaderFrom: options.everyHeaderFrom,
        partEvents: options.streamedPartEvents,
        slices: options.rangeSlices,
      }),
    );
    // Rejections surface in next(); an abandoned feed must not report them as unhandled.
    entry.data.catch(() => {});
  };

  const fill = () => {
    while (queue.length < concurrency && nextFrom <= to) {
      const from = nextFrom;
      const until = Math.min(to, from + size - 1);
      nextFrom = until + 1;
      const factoryLogs = fetchFactoryLogs(rpc, from, until, options.sets.factory);
      const after = Promise.all([sets, factoryLogs]).then(([known, logs]) => extendAddressSets(known, logs));
      sets = after;
      after.catch(() => {});
      factoryLogs.catch(() => {});
      queue.push({ from, to: until, sets: after, factoryLogs });
    }
    for (const entry of queue.slice(0, concurrency)) begin(entry);
  };

  /** `entry` cut into parts that replace it at the front of the queue. */
  const cut = (entry: Entry, error: RpcResponseTooLargeError) => {
    const blocks = entry.to - entry.from + 1;
    const partSize = Math.ceil(blocks / partsFor(error, blocks));
    size = Math.min(size, partSize);
    const parts: Entry[] = [];
    for (let from = entry.from; from <= entry.to; from += partSize) {
      const until = Math.min(entry.to, from + partSize - 1);
      const factoryLogs = entry.factoryLogs.then((logs) =>
        logs.filter((log) => {
          const block = Number.parseInt(log.blockNumber, 16);
          return block >= from && block <= until;
        }),
      );
      factoryLogs.catch(() => {});
      // The whole range's sets: a token launched later in it has no logs in the earlier parts.
      parts.push({ from, to: until, sets: entry.sets, factoryLogs });
    }
    queue.unshift(...parts);
  };

  return {
    get rangeSize() {
      return size;
    },
    async next() {
      for (;;) {
        fill();
        const entry = queue[0];
        if (!entry) return undefined;
        let data: RangeData | undefined;
        try {
          const parts = await (entry.data as Promise<RangeParts>);
          data = await (entry.part ?? parts.next());
          // A range streamed in parts: the next one is read while this one is projected.
          entry.part = data ? parts.next() : undefined;
          entry.part?.catch(() => {});
        } catch (error) {
          if (!(error instanceof RpcResponseTooLargeError) || entry.from === entry.to) throw error;
          queue.shift();
          cut(entry, error);
          continue;
        }
        if (!data) {
          queue.shift();
          continue;
        }
        const blocks = data.to - data.from + 1;
        if (data.logCount > targetLogs) size = Math.max(1, Math.floor((blocks * targetLogs) / data.logCount));
        else if (data.logCount < targetLogs / 4 && blocks >= size) size = Math.min(maxRange, size * 2);
        fill();
        return data;
      }
    },
    close() {
      // Answers still arriving are cancelled as they come, not awaited: a fetch in its retries
      // could hold the failed step for minutes.
      for (const entry of queue.splice(0))
        void entry.data?.then(
          (parts) => parts.cancel(),
          () => {},
        );
    },
  };
}
