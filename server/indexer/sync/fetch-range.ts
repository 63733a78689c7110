import { type DecodedEvent, decodeLog, type RawLog, topics } from '../decode/events';
import type { RpcClient } from '../rpc/client';
import { concatAnswers, type ResultStream } from '../rpc/result-stream';
import type { AddressBook } from './address-book';

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
  /** The token of each pool whose Swaps the range holds (pools graduated in it included). */
  pools: ReadonlyMap<string, string>;
  /** One of several parts a range was handed on in as its Transfers arrived (fetchRangeParts). */
  streamed?: boolean;
}

/** The chain changed under us between requests (a log's block hash is not the header's). */
export class RangeInconsistentError extends Error {
  override name = 'RangeInconsistentError';
}

export interface AddressSets {
  factory: string;
  /** Tokens and pools stored before the first range of a feed. */
  book: AddressBook;
  /** Tokens launched and pools (pool → token) created since, by the feed's earlier ranges. */
  tokens: ReadonlySet<string>;
  pools: ReadonlyMap<string, string>;
}

/** Above this many addresses, filter by topic only and keep the logs of known addresses. */
const ADDRESS_FILTER_LIMIT = 500;
const HEADER_BATCH = 200;

const hex = (n: number) => `0x${n.toString(16)}`;

interface RawHeader {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

export function toHeader(raw: RawHeader): BlockHeader {
  return {
    number: Number.parseInt(raw.number, 16),
    hash: raw.hash.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    timestamp: Number.parseInt(raw.timestamp, 16),
  };
}

export async function fetchHeaders(rpc: RpcClient, numbers: number[]): Promise<Map<number, BlockHeader>> {
  const headers = new Map<number, BlockHeader>();
  for (let i = 0; i < numbers.length; i += HEADER_BATCH) {
    const chunk = numbers.slice(i, i + HEADER_BATCH);
    const raws = await rpc.batch<RawHeader | null>(
      chunk.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
    );
    raws.forEach((raw, index) => {
      if (!raw) throw new RangeInconsistentError(`block ${chunk[index]} is not available`);
      const header = toHeader(raw);
      headers.set(header.number, header);
    });
  }
  return headers;
}

/**
 * The factory's launches and graduations in [from, to]: they name the tokens and pools whose
 * logs the range must also fetch. Few and quick, so later ranges wait only for these. Read
 * whole, past the answer-size limit: every later range's address sets build on them, and they
 * are a small share of any range's logs (one launch brings hundreds of trades and transfers).
 */
export async function fetchFactoryLogs(rpc: RpcClient, from: number, to: number, factory: string) {
  const whole = { maxResponseBytes: Number.POSITIVE_INFINITY };
  const logs = await rpc.request<RawLog[]>(
    'eth_getLogs',
    [
      {
        fromBlock: hex(from),
        toBlock: hex(to),
        address: factory,
        topics: [[topics.launch, topics.graduation]],
      },
    ],
    whole,
  );
  return logs.filter((log) => !log.removed);
}

/**
 * The address sets after a range whose factory logs are `factoryLogs`: the same sets when the
 * range launched and graduated nothing.
 */
export function extendAddressSets(sets: AddressSets, factoryLogs: readonly RawLog[]): AddressSets {
  const launched: string[] = [];
  const graduated: [pool: string, token: string][] = [];
  for (const log of factoryLogs) {
    const event = decodeLog(log);
    if (event?.type === 'launch') launched.push(event.token);
    else if (event?.type === 'graduation') graduated.push([event.pool, event.token]);
  }
  if (launched.length === 0 && graduated.length === 0) return sets;
  return {
    ...sets,
    tokens: new Set([...sets.tokens, ...launched]),
    pools: new Map([...sets.pools, ...graduated]),
  };
}

/** The launchpad's activity: Trades of the factory, Transfers of its tokens, Swaps of their pools. */
const ACTIVITY_TOPICS = [topics.trade, topics.transfer, topics.swap];

/** What a range asks the node for besides the factory's launches and graduations, and what it keeps. */
interface ActivityFilter {
  /** The eth_getLogs filter, without the block range. */
  filter: { address?: string[]; topics: string[][] };
  /**
   * The logs of known emitters among `logs`: Trades of the factory, Transfers of known tokens,
   * Swaps of known pools (emitters the book does not list are looked up in the database).
   */
  keep(logs: RawLog[]): Promise<RawLog[]>;
  /** The token of each pool whose Swaps were kept so far. */
  pools: ReadonlyMap<string, string>;
}

/**
 * One filter for all the activity of a range: a node scans the range's blocks once per request
 * and builds each answer whole before its first byte, so three requests (Trades, Transfers,
 * Swaps) meant three scans and a first part that waited for the slowest whole answer. Emitters
 * are named while the book lists them all and they fit a request; otherwise the range asks by
 * topic and keeps the logs of emitters it knows or finds stored.
 */
function activityFilter(sets: AddressSets): ActivityFilter {
  const listed = sets.book.listed();
  const tokens = listed ? new Set([...listed.tokens, ...sets.tokens]) : new Set(sets.tokens);
  const poolTokens = new Map([...(listed?.pools ?? []), ...sets.pools]);
  const notTokens = new Set<string>();
  const notPools = new Set<string>();
  const pools = new Map<string, string>();
  const byName = listed !== undefined && 1 + tokens.size + poolTokens.size <= ADDRESS_FILTER_LIMIT;
  const filter = byName
    ? { address: [sets.factory, ...tokens, ...poolTokens.keys()], topics: [ACTIVITY_TOPICS] }
    : { topics: [ACTIVITY_TOPICS] };

  /** Looks up the emitters of Transfers and Swaps neither known nor ruled out: each once a range. */
  async function lookUpStrangers(logs: readonly RawLog[]) {
    const tokenQuestions = new Set<string>();
    const poolQuestions = new Set<string>();
    for (const log of logs) {
      const address = log.address.toLowerCase();
      const topic0 = log.topics[0];
      if (topic0 === topics.transfer && !tokens.has(address) && !notTokens.has(address))
        tokenQuestions.add(address);
      else if (topic0 === topics.swap && !poolTokens.has(address) && !notPools.has(address))
        poolQuestions.add(address);
    }
    const [foundTokens, foundPools] = await Promise.all([
      tokenQuestions.size > 0 ? sets.book.tokensAmong([...tokenQuestions]) : new Set<string>(),
      poolQuestions.size > 0 ? sets.book.poolsAmong([...poolQuestions]) : new Map<string, string>(),
    ]);
    for (const address of tokenQuestions) (foundTokens.has(address) ? tokens : notTokens).add(address);
    for (const address of poolQuestions) {
      const token = foundPools.get(address);
      if (token) poolTokens.set(address, token);
      else notPools.add(address);
    }
  }

  return {
    filter,
    pools,
    async keep(logs) {
      if (!listed) await lookUpStrangers(logs);
      return logs.filter((log) => {
        const address = log.address.toLowerCase();
        switch (log.topics[0]) {
          case topics.trade:
            return address === sets.factory;
          case topics.transfer:
            return tokens.has(address);
          case topics.swap: {
            const token = poolTokens.get(address);
            if (token) pools.set(address, token);
            return token !== undefined;
          }
          default:
            return false;
        }
      });
    },
  };
}

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
export const RANGE_SLICES = 4;
/** A range is sliced only into slices of at least this many blocks. */
const MIN_SLICE_BLOCKS = 8;
/**
 * A slice's answer over this size is read as it arrives, not whole: the slices after the one
 * being handed on wait in their sockets instead of in memory.
 */
const SLICE_WHOLE_BYTES = 8 * 2 ** 20;

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

/** Decodes `logs` onto `events`, skipping removed logs and those of no known event. */
function decodeInto(events: DecodedEvent[], logs: readonly RawLog[]): void {
  for (const log of logs) {
    if (log.removed) continue;
    const event = decodeLog(log);
    if (event) events.push(event);
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
export const STREAMED_PART_EVENTS = 24_000;

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
export async function fetchRangeWith(
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
