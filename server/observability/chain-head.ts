import { createPublicClient, http } from 'viem';
import type { ChainConfig } from '../config';

/** The chain head as the RPC reports it, or null when no chain is configured or it did not answer. */
export type ChainHead = () => Promise<number | null>;

/**
 * Reads the chain head over one RPC client, built once by its process (the web process's object,
 * the indexer's metrics). Null when the RPC does not answer within `timeoutMs`: readiness and
 * metrics must answer quickly even when the chain is down.
 */
export function createChainHead(chain: ChainConfig | undefined, timeoutMs = 2_000): ChainHead {
  if (!chain) return async () => null;
  const client = createPublicClient({
    transport: http(chain.rpcUrl, { timeout: timeoutMs, retryCount: 0 }),
    cacheTime: 0,
  });
  return async () => {
    try {
      return Number(await client.getBlockNumber());
    } catch {
      return null;
    }
  };
}
