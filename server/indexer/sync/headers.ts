import { IndexerError, type Retry } from '../errors';
import type { RpcClient } from '../rpc/client';
import type { BlockHeader } from './range-algebra';

/** The chain changed under us between requests (a log's block hash is not the header's). */
export class RangeInconsistentError extends IndexerError {
  override name = 'RangeInconsistentError';
  /** The next step reads the range again (and finds the reorg, if it was one). */
  readonly retry: Retry = 'now';
}

/** The node does not have a block at or below a head it reported (a lagging node): wait for it. */
export class BlockUnavailableError extends RangeInconsistentError {
  override name = 'BlockUnavailableError';
  override readonly retry: Retry = 'later';
}

const HEADER_BATCH = 200;

/** A block number as JSON-RPC quantity. */
export const hex = (n: number) => `0x${n.toString(16)}`;

interface RawHeader {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

function toHeader(raw: RawHeader): BlockHeader {
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
      if (!raw) throw new BlockUnavailableError(`block ${chunk[index]} is not available`);
      const header = toHeader(raw);
      headers.set(header.number, header);
    });
  }
  return headers;
}
