import { type DecodedEvent, decodeLog, type RawLog, topics } from '../decode/events';
import type { RpcClient } from '../rpc/client';

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
}

/** The chain changed under us between requests (a log's block hash is not the header's). */
export class RangeInconsistentError extends Error {
  override name = 'RangeInconsistentError';
}

export interface AddressSets {
  factory: string;
  /** Launched tokens known before this range (new ones are learned from its launches). */
  tokens: ReadonlySet<string>;
  /** Pools of graduated tokens known before this range. */
  pools: ReadonlySet<string>;
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
  if (addresses === undefined) return rpc.request<RawLog[]>('eth_getLogs', [base]);
  if (addresses.size === 0) return [];
  if (addresses.size > ADDRESS_FILTER_LIMIT) {
    const logs = await rpc.request<RawLog[]>('eth_getLogs', [base]);
    return logs.filter((log) => addresses.has(log.address.toLowerCase()));
  }
  return rpc.request<RawLog[]>('eth_getLogs', [{ ...base, address: [...addresses] }]);
}

/**
 * Fetches everything the projections need for [from, to]: factory events first (they name the
 * tokens and pools launched or graduated inside the range), then their Transfers and Swaps, then
 * the headers of every block with a log plus both range ends.
 */
export async function fetchRange(
  rpc: RpcClient,
  from: number,
  to: number,
  sets: AddressSets,
): Promise<RangeData> {
  const factoryLogs = await rpc.request<RawLog[]>('eth_getLogs', [
    {
      fromBlock: hex(from),
      toBlock: hex(to),
      address: sets.factory,
      topics: [[topics.launch, topics.trade, topics.graduation]],
    },
  ]);
  const factoryEvents = factoryLogs.filter((log) => !log.removed).map(decodeLog);
  const tokens = new Set(sets.tokens);
  const pools = new Set(sets.pools);
  for (const event of factoryEvents) {
    if (event?.type === 'launch') tokens.add(event.token);
    if (event?.type === 'graduation') pools.add(event.pool);
  }
  const [transferLogs, swapLogs] = await Promise.all([
    getLogs(rpc, from, to, [topics.transfer], tokens),
    getLogs(rpc, from, to, [topics.swap], pools),
  ]);
  const events: DecodedEvent[] = [];
  for (const event of factoryEvents) if (event) events.push(event);
  for (const log of [...transferLogs, ...swapLogs]) {
    if (log.removed) continue;
    const event = decodeLog(log);
    if (event) events.push(event);
  }
  events.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);

  const blockNumbers = new Set<number>([from, to]);
  for (const event of events) blockNumbers.add(event.blockNumber);
  const headers = await fetchHeaders(
    rpc,
    [...blockNumbers].sort((a, b) => a - b),
  );
  for (const event of events) {
    if (headers.get(event.blockNumber)?.hash !== event.blockHash) {
      throw new RangeInconsistentError(`block ${event.blockNumber} changed while the range was read`);
    }
  }
  return { from, to, events, headers, logCount: factoryLogs.length + transferLogs.length + swapLogs.length };
}
