import type { DecodedEvent } from '../decode/events';
import type { FundingBlock } from '../project/funding';

/**
 * The pure algebra of block ranges: how a fetched range is cut (at a block, into parts of about
 * so many events, into request slices) and what a range says about its pools. No I/O: the
 * fetch (fetch-range.ts) and the pipeline (../pipeline.ts) build on it.
 */

export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
}

/** Logs and headers of one block range, decoded and in canonical order. */
export interface RangeData {
  from: number;
  to: number;
  events: DecodedEvent[];
  headers: Map<number, BlockHeader>;
  logCount: number;
  /**
   * The token of each pool whose Swaps the range holds (pools graduated in it included): read
   * with {@link tokenOfPool}, the one place a Swap is tied to its token.
   */
  pools: ReadonlyMap<string, string>;
  /** One of several parts a range was handed on in as its Transfers arrived (fetchRangeParts). */
  streamed?: boolean;
  /**
   * The schema whose stored chunks are exactly this range (store/stored-feed.ts); a part cut
   * from it holds its own events only, and stores them as a chunk of its own.
   */
  storedIn?: string;
  /** Blocks the funding check read for the stored writes of this range (a replay: store/stored-feed.ts). */
  fundingBlocks?: readonly FundingBlock[];
}

/** The token whose pool emitted a Swap of `range`, or undefined for a pool the launchpad did not make. */
export function tokenOfPool(range: Pick<RangeData, 'pools'>, pool: string): string | undefined {
  return range.pools.get(pool);
}

/** A range is sliced only into slices of at least this many blocks. */
const MIN_SLICE_BLOCKS = 8;

/** [from, to] in `count` consecutive slices of (nearly) equal length. */
export function blockSlices(from: number, to: number, count: number): [number, number][] {
  const blocks = to - from + 1;
  const n = Math.max(1, Math.min(count, Math.floor(blocks / MIN_SLICE_BLOCKS)));
  const slices: [number, number][] = [];
  for (let i = 0, start = from; i < n; i++) {
    const end = from + Math.round(((i + 1) * blocks) / n) - 1;
    slices.push([start, end]);
    start = end + 1;
  }
  return slices;
}

/** The part of `range` from block `from` to `to`, with the given events and the headers it holds. */
function rangePart(range: RangeData, from: number, to: number, events: DecodedEvent[]): RangeData {
  const headers = new Map<number, BlockHeader>();
  for (const [number, header] of range.headers)
    if (number >= from && number <= to) headers.set(number, header);
  return { from, to, events, headers, logCount: events.length, pools: range.pools };
}

/**
 * The range cut after block `block` (when it lies inside): the part a reorg can no longer reach
 * and the part it can, which the writer journals (server/indexer/reorg/rollback.ts).
 */
export function splitAtBlock(range: RangeData, block: number): RangeData[] {
  if (block < range.from || block >= range.to) return [range];
  const cut = range.events.findIndex((e) => e.blockNumber > block);
  const at = cut === -1 ? range.events.length : cut;
  return [
    rangePart(range, range.from, block, range.events.slice(0, at)),
    rangePart(range, block + 1, range.to, range.events.slice(at)),
  ];
}

/** A range this much over the events limit is still written whole. */
const SPLIT_SLACK = 1.25;

/**
 * Cuts a fetched range into consecutive ranges of about `maxEvents` events each (equal parts;
 * none when it is at most a quarter over), at block boundaries (a block is never split), so
 * that one dense range is projected in several transactions whose writes overlap the folding
 * of the next. Each part ends on a block whose header the range holds.
 */
export function splitRange(range: RangeData, maxEvents: number): RangeData[] {
  const total = range.events.length;
  if (total <= maxEvents * SPLIT_SLACK) return [range];
  // Parts of equal size: cut at the limit, the benchmark's ranges of 25.7k events left
  // remainders of 700, each a write of its own (40–230 ms, most of it fixed cost).
  const perPart = Math.ceil(total / Math.ceil(total / maxEvents));
  const parts: RangeData[] = [];
  let from = range.from;
  let start = 0;
  while (start < range.events.length) {
    let end = Math.min(range.events.length, start + perPart);
    const boundary = (range.events[end - 1] as DecodedEvent).blockNumber;
    while (end < range.events.length && (range.events[end] as DecodedEvent).blockNumber === boundary) end++;
    const last = end === range.events.length;
    const to = last ? range.to : boundary;
    parts.push(rangePart(range, from, to, range.events.slice(start, end)));
    from = to + 1;
    start = end;
  }
  return parts;
}
