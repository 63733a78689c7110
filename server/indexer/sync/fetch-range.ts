import { type DecodedEvent, decodeLog, type RawLog } from '../decode/events';
import type { RpcClient } from '../rpc/client';
import { concatAnswers, type ResultStream } from '../rpc/result-stream';
import { encodeLog } from '../store/log-chunk';
import {
  type ActivityFilter,
  type AddressSets,
  activityFilter,
  extendAddressSets,
  fetchFactoryLogs,
} from './activity-filter';
import { fetchHeaders, hex, RangeInconsistentError } from './headers';
import { blockSlices, type RangeData } from './range-algebra';

/** Where a range's activity comes from: an answer read whole, or one streamed in parts. */
type ActivitySource = { whole: RawLog[] } | { stream: ResultStream };

/** A range's data handed on in consecutive parts, each a RangeData of its own. */
export interface RangeParts {
  /** The next part in chain order, or undefined after the last. */
  next(): Promise<RangeData | undefined>;
  /** Stops reading (an abandoned feed). */
  cancel(): Promise<void>;
}

/**
 * The activity of a range is asked in up to this many consecutive block slices at once. A node
 * builds an eth_getLogs answer whole before its first byte (anvil: 2.6 s for the benchmark's
 * dense stretch, on one core, while the indexer waits); slices are built side by side and the
 * first arrives after a fraction of that. They are one answer to the parts that follow.
 */
const RANGE_SLICES = 4;
/**
 * A slice's answer over this size is read as it arrives, not whole: the slices after the one
 * being handed on wait in their sockets instead of in memory.
 */
const SLICE_WHOLE_BYTES = 8 * 2 ** 20;

/**
 * The activity of [from, to]: read whole when the client cannot stream or the range is one
 * block (its gas bounds it, so past the answer-size limit); otherwise through
 * `requestOrStream`, where an answer over the client's limit is kept as a stream instead of
 * being dropped, and a range of many blocks is asked in `slices` slices at once, read in order
 * as one stream.
 */
async function activitySource(
  rpc: RpcClient,
  from: number,
  to: number,
  activity: ActivityFilter,
  slices: number,
): Promise<ActivitySource> {
  const range = { fromBlock: hex(from), toBlock: hex(to), ...activity.filter };
  const requestOrStream = rpc.requestOrStream?.bind(rpc);
  if (!requestOrStream || from === to) {
    const limit = from === to ? { maxResponseBytes: Number.POSITIVE_INFINITY } : undefined;
    return { whole: await activity.keep(await rpc.request<RawLog[]>('eth_getLogs', [range], limit)) };
  }
  const ask = (a: number, b: number, options?: { maxResponseBytes: number }) =>
    requestOrStream<RawLog>('eth_getLogs', [{ ...range, fromBlock: hex(a), toBlock: hex(b) }], options);
  const parts = blockSlices(from, to, slices);
  if (parts.length > 1)
    return {
      stream: concatAnswers(parts.map(([a, b]) => ask(a, b, { maxResponseBytes: SLICE_WHOLE_BYTES }))),
    };
  const answer = await ask(from, to);
  if ('whole' in answer) return { whole: await activity.keep(answer.whole) };
  return { stream: answer.stream };
}

const blockOf = (log: RawLog) => Number.parseInt(log.blockNumber, 16);
const chainOrder = (a: RawLog, b: RawLog) =>
  blockOf(a) - blockOf(b) || Number.parseInt(a.logIndex, 16) - Number.parseInt(b.logIndex, 16);

/**
 * Decodes `logs` onto `events`, skipping removed logs and those of no known event. Each event
 * carries its log's record for the event store, made now: the parsed log dies young.
 */
function decodeInto(events: DecodedEvent[], logs: readonly RawLog[]): void {
  for (const log of logs) {
    if (log.removed) continue;
    const event = decodeLog(log);
    if (!event) continue;
    event.raw = encodeLog(log);
    events.push(event);
  }
}

/**
 * Decodes the logs of [from, to] into a RangeData: events in chain order (with `decoded`, events
 * of the range decoded already, counted as logs), and the headers of every block with a log,
 * both ends and every block from `everyHeaderFrom` on.
 */
async function assemble(
  rpc: RpcClient,
  from: number,
  to: number,
  lists: readonly (readonly RawLog[])[],
  pools: ReadonlyMap<string, string>,
  everyHeaderFrom: number,
  decoded: readonly DecodedEvent[] = [],
): Promise<RangeData> {
  const events: DecodedEvent[] = [...decoded];
  let logCount = decoded.length;
  for (const logs of lists) {
    logCount += logs.length;
    decodeInto(events, logs);
  }
  events.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);

  const blockNumbers = new Set<number>([from, to]);
  for (const event of events) blockNumbers.add(event.blockNumber);
  for (let n = Math.max(from, everyHeaderFrom); n <= to; n++) blockNumbers.add(n);
  const headers = await fetchHeaders(
    rpc,
    [...blockNumbers].sort((a, b) => a - b),
  );
  for (const event of events) {
    if (headers.get(event.blockNumber)?.hash !== event.blockHash) {
      throw new RangeInconsistentError(`block ${event.blockNumber} changed while the range was read`);
    }
  }
  return { from, to, events, headers, logCount, pools };
}

/**
 * Events per part of a streamed range (about the writer's 25k: the benchmark's parts of 20k
 * Transfers came with their Trades to ~23.6k events).
 */
const STREAMED_PART_EVENTS = 24_000;

export interface RangePartsOptions {
  /**
   * The lowest block within finality depth of the head: from there on every block is
   * remembered, with or without logs, so a reorg anywhere in that window finds its common
   * ancestor even across long runs of blocks without launchpad events.
   */
  everyHeaderFrom?: number;
  /** Events per part (default STREAMED_PART_EVENTS). */
  partEvents?: number;
  /** Block slices the activity is asked in (default RANGE_SLICES; 1: one request). */
  slices?: number;
}

/**
 * The rest of [from, to] once its launches and graduations are known: the factory's Trades,
 * Transfers of the tokens and Swaps of the pools in `sets` (which must include those the factory
 * logs name), in one filter, then the headers of every block with a log, both range ends and
 * every block from `everyHeaderFrom` on. Activity asked in slices, or too much to read whole
 * (over the client's answer limit), is read as it arrives and the range handed on in parts cut
 * at blocks, each with the factory logs of its blocks: the node built that answer already, and
 * asking again in smaller ranges would make it build it twice.
 */
export async function fetchRangeParts(
  rpc: RpcClient,
  from: number,
  to: number,
  factoryLogs: readonly RawLog[],
  sets: AddressSets,
  options: RangePartsOptions = {},
): Promise<RangeParts> {
  const everyHeaderFrom = options.everyHeaderFrom ?? Number.POSITIVE_INFINITY;
  const partEvents = options.partEvents ?? STREAMED_PART_EVENTS;
  const activity = activityFilter(sets);
  const source = await activitySource(rpc, from, to, activity, options.slices ?? RANGE_SLICES);
  if ('whole' in source) {
    let range: RangeData | undefined = await assemble(
      rpc,
      from,
      to,
      [factoryLogs, source.whole],
      activity.pools,
      everyHeaderFrom,
    );
    return {
      async next() {
        const part = range;
        range = undefined;
        return part;
      },
      async cancel() {},
    };
  }
  return streamedParts(rpc, from, to, factoryLogs, source.stream, activity, { everyHeaderFrom, partEvents });
}

/** The parts of a range whose activity arrives as a stream (see fetchRangeParts). */
function streamedParts(
  rpc: RpcClient,
  from: number,
  to: number,
  factoryLogs: readonly RawLog[],
  stream: ResultStream,
  activity: ActivityFilter,
  { everyHeaderFrom, partEvents }: { everyHeaderFrom: number; partEvents: number },
): RangeParts {
  // The factory logs are in hand: in chain order, consumed from `taken` on as parts go.
  const factoryInOrder = [...factoryLogs].sort(chainOrder);
  let taken = 0;
  // Logs are decoded as their batch arrives: the parsed logs then die young, where kept until
  // their part was cut they outlived several young-generation collections, each of which
  // copied them (scavenges were ~28 % of the thread's time in the dense stretch).
  let pending: DecodedEvent[] = [];
  let lastBlock = from;
  let streamEnded = false;
  let partFrom = from;

  const readMore = async () => {
    const batch = (await stream.next()) as RawLog[] | undefined;
    if (!batch) {
      streamEnded = true;
      return;
    }
    for (const log of batch) {
      const block = blockOf(log);
      // Parts are cut where the blocks change, which needs the answer in chain order.
      if (block < lastBlock || block < from || block > to)
        throw new RangeInconsistentError(`log of block ${block} out of order in an answer for ${from}–${to}`);
      lastBlock = block;
    }
    decodeInto(pending, await activity.keep(batch));
  };

  return {
    async next() {
      if (partFrom > to) return undefined;
      // Enough events for a part, and the first log of a later block to cut before.
      let cut = -1;
      for (;;) {
        if (pending.length > partEvents) {
          const boundary = (pending[partEvents - 1] as DecodedEvent).blockNumber;
          cut = pending.findIndex((event, i) => i >= partEvents && event.blockNumber > boundary);
          if (cut !== -1) break;
        }
        if (streamEnded) break;
        await readMore();
      }
      const partTo = cut === -1 ? to : (pending[cut] as DecodedEvent).blockNumber - 1;
      const eventsOfPart = cut === -1 ? pending : pending.slice(0, cut);
      pending = cut === -1 ? [] : pending.slice(cut);
      let end = taken;
      while (end < factoryInOrder.length && blockOf(factoryInOrder[end] as RawLog) <= partTo) end++;
      const factoryPart = factoryInOrder.slice(taken, end);
      taken = end;
      const range = await assemble(
        rpc,
        partFrom,
        partTo,
        [factoryPart],
        activity.pools,
        everyHeaderFrom,
        eventsOfPart,
      );
      const whole = partFrom === from && partTo === to;
      partFrom = partTo + 1;
      return whole ? range : { ...range, streamed: true };
    },
    async cancel() {
      if (!streamEnded) await stream.cancel();
    },
  };
}

/** The whole of [from, to] in one RangeData (see fetchRangeParts; nothing is streamed). */
async function fetchRangeWith(
  rpc: RpcClient,
  from: number,
  to: number,
  factoryLogs: readonly RawLog[],
  sets: AddressSets,
  everyHeaderFrom = Number.POSITIVE_INFINITY,
): Promise<RangeData> {
  const whole: RpcClient = { request: (m, p, o) => rpc.request(m, p, o), batch: (r) => rpc.batch(r) };
  const parts = await fetchRangeParts(whole, from, to, factoryLogs, sets, { everyHeaderFrom });
  return (await parts.next()) as RangeData;
}

/** Everything the projections need for [from, to] (factory logs first: they extend the sets). */
export async function fetchRange(
  rpc: RpcClient,
  from: number,
  to: number,
  sets: AddressSets,
): Promise<RangeData> {
  const factoryLogs = await fetchFactoryLogs(rpc, from, to, sets.factory);
  return fetchRangeWith(rpc, from, to, factoryLogs, extendAddressSets(sets, factoryLogs));
}
