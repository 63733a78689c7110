import { type DecodedEvent, decodeLog, type RawLog, topics } from '../decode/events';
import type { RpcClient } from '../rpc/client';
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

async function getLogs(
  rpc: RpcClient,
  from: number,
  to: number,
  topic0: string[],
  addresses: ReadonlySet<string> | undefined,
) {
  const base = { fromBlock: hex(from), toBlock: hex(to), topics: [topic0] };
  // A range too large to read is retried smaller; one block is read whole (its gas bounds it).
  const limit = from === to ? { maxResponseBytes: Number.POSITIVE_INFINITY } : undefined;
  if (addresses === undefined) return rpc.request<RawLog[]>('eth_getLogs', [base], limit);
  if (addresses.size === 0) return [];
  if (addresses.size > ADDRESS_FILTER_LIMIT) {
    const logs = await rpc.request<RawLog[]>('eth_getLogs', [base], limit);
    return logs.filter((log) => addresses.has(log.address.toLowerCase()));
  }
  return rpc.request<RawLog[]>('eth_getLogs', [{ ...base, address: [...addresses] }], limit);
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

/**
 * Logs of `topic` in [from, to] emitted by known addresses: named in the request while the book
 * lists them all, else asked by topic and the emitters looked up.
 */
async function logsOfKnown(
  rpc: RpcClient,
  from: number,
  to: number,
  topic: string,
  listed: ReadonlySet<string> | undefined,
  added: ReadonlySet<string>,
  lookUp: (addresses: string[]) => Promise<ReadonlySet<string>>,
): Promise<RawLog[]> {
  if (listed) return getLogs(rpc, from, to, [topic], new Set([...listed, ...added]));
  const logs = await getLogs(rpc, from, to, [topic], undefined);
  const emitters = new Set<string>();
  for (const log of logs) {
    const address = log.address.toLowerCase();
    if (!added.has(address)) emitters.add(address);
  }
  const known = emitters.size > 0 ? await lookUp([...emitters]) : new Set<string>();
  return logs.filter((log) => {
    const address = log.address.toLowerCase();
    return added.has(address) || known.has(address);
  });
}

/**
 * The rest of [from, to] once its launches and graduations are known: the factory's Trades,
 * Transfers of the tokens and Swaps of the pools in `sets` (which must include those the factory
 * logs name), all at once, then the headers of every block with a log, both range ends and every
 * block from `everyHeaderFrom` on.
 * @param everyHeaderFrom the lowest block within finality depth of the head: from there on every
 * block is remembered, with or without logs, so a reorg anywhere in that window finds its
 * common ancestor even across long runs of blocks without launchpad events.
 */
export async function fetchRangeWith(
  rpc: RpcClient,
  from: number,
  to: number,
  factoryLogs: readonly RawLog[],
  sets: AddressSets,
  everyHeaderFrom = Number.POSITIVE_INFINITY,
): Promise<RangeData> {
  const listed = sets.book.listed();
  const storedPools = new Map<string, string>();
  const [tradeLogs, transferLogs, swapLogs] = await Promise.all([
    getLogs(rpc, from, to, [topics.trade], new Set([sets.factory])),
    logsOfKnown(rpc, from, to, topics.transfer, listed?.tokens, sets.tokens, (a) => sets.book.tokensAmong(a)),
    logsOfKnown(
      rpc,
      from,
      to,
      topics.swap,
      listed && new Set(listed.pools.keys()),
      new Set(sets.pools.keys()),
      async (a) => {
        for (const [pool, token] of await sets.book.poolsAmong(a)) storedPools.set(pool, token);
        return new Set(storedPools.keys());
      },
    ),
  ]);
  const pools = new Map<string, string>();
  for (const log of swapLogs) {
    const pool = log.address.toLowerCase();
    const token = sets.pools.get(pool) ?? listed?.pools.get(pool) ?? storedPools.get(pool);
    if (token) pools.set(pool, token);
  }
  const events: DecodedEvent[] = [];
  for (const logs of [factoryLogs, tradeLogs, transferLogs, swapLogs]) {
    for (const log of logs) {
      if (log.removed) continue;
      const event = decodeLog(log);
      if (event) events.push(event);
    }
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
  return {
    from,
    to,
    events,
    headers,
    logCount: factoryLogs.length + tradeLogs.length + transferLogs.length + swapLogs.length,
    pools,
  };
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
