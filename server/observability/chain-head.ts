import { createPublicClient, http, type PublicClient } from 'viem';
import type { ChainConfig } from '../config';

const slot: {
  headClient?: { url: string; client: PublicClient };
} = {};

/**
 * The chain head as the RPC reports it, or null when it does not answer within `timeoutMs`:
 * readiness and metrics must answer quickly even when the chain is down.
 */
export async function readChainHead(
  chain: ChainConfig | undefined,
  timeoutMs = 2_000,
): Promise<number | null> {
  if (!chain) return null;
  if (slot.headClient?.url !== chain.rpcUrl) {
    slot.headClient = {
      url: chain.rpcUrl,
      client: createPublicClient({
        transport: http(chain.rpcUrl, { timeout: timeoutMs, retryCount: 0 }),
        cacheTime: 0,
      }),
    };
  }
  try {
    return Number(await slot.headClient.client.getBlockNumber());
  } catch {
    return null;
  }
}
