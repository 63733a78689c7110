import type { RpcClient } from '../rpc/client';
import {
  type AddressSets,
  extendAddressSets,
  fetchFactoryLogs,
  fetchRangeWith,
  type RangeData,
} from './fetch-range';

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
  /** Every block from here on is remembered with its header (see fetchRangeWith). */
  everyHeaderFrom: number;
}

export interface RangeFeed {
  /** The next range in chain order, or undefined past `to`. A failed fetch rejects here. */
  next(): Promise<RangeData | undefined>;
  /** The adapted range size, for the next feed. */
  readonly rangeSize: number;
}

/**
 * Fetches consecutive block ranges ahead of their consumer, several in flight. A range's
 * Transfers and Swaps are filtered by the tokens and pools known before it plus those its own
 * factory logs name, so each range waits for the factory logs of the ranges before it (small
 * and quick) but not for their Transfers, Swaps or headers.
 */
export function createRangeFeed(options: RangeFeedOptions): RangeFeed {
  const { rpc, to, maxRange, targetLogs } = options;
  let size = Math.max(1, Math.min(options.rangeSize, maxRange));
  let nextFrom = options.from;
  let sets: Promise<AddressSets> = Promise.resolve(options.sets);
  const queue: Promise<RangeData>[] = [];

  const fill = () => {
    while (queue.length < options.concurrency && nextFrom <= to) {
      const from = nextFrom;
      const until = Math.min(to, from + size - 1);
      nextFrom = until + 1;
      const factoryLogs = fetchFactoryLogs(rpc, from, until, options.sets.factory);
      const before = sets;
      const after = Promise.all([before, factoryLogs]).then(([known, logs]) =>
        extendAddressSets(known, logs),
      );
      sets = after;
      const data = Promise.all([after, factoryLogs]).then(([known, logs]) =>
        fetchRangeWith(rpc, from, until, logs, known, options.everyHeaderFrom),
      );
      // Rejections surface in next(); an abandoned feed must not report them as unhandled.
      after.catch(() => {});
      data.catch(() => {});
      queue.push(data);
    }
  };

  return {
    get rangeSize() {
      return size;
    },
    async next() {
      fill();
      const pending = queue.shift();
      if (!pending) return undefined;
      const data = await pending;
      const blocks = data.to - data.from + 1;
      if (data.logCount > targetLogs) size = Math.max(1, Math.floor((blocks * targetLogs) / data.logCount));
      else if (data.logCount < targetLogs / 4 && blocks >= size) size = Math.min(maxRange, size * 2);
      fill();
      return data;
    },
  };
}
