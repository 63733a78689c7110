import type { Hash, TransactionReceipt } from 'viem';
import { getTransactionReceipt } from 'viem/actions';
import type { Config } from 'wagmi';
import { waitForTransactionReceipt } from 'wagmi/actions';

/**
 * A sent transaction's receipt, mined successfully or not. wagmi's wait (which follows
 * replacements, e.g. a wallet's speed-up) looks again only when a new block arrives, and without a
 * timeout: anvil's automine can answer the new block number a moment before the receipt, and on a
 * quiet devnet no next block ever comes, so the wait hung (CI's trade e2e, once). The receipt is
 * therefore also asked for directly each polling interval; whichever finds it first ends both.
 */
export async function waitForReceipt(
  config: Config,
  chainId: number,
  hash: Hash,
): Promise<TransactionReceipt> {
  const stop = new AbortController();
  const client = config.getClient({ chainId });
  const direct = async (): Promise<TransactionReceipt> => {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, client.pollingInterval));
      if (stop.signal.aborted) throw stop.signal.reason;
      const receipt = await getTransactionReceipt(client, { hash }).catch(() => undefined);
      if (receipt) return receipt;
    }
  };
  // wagmi throws on a reverted receipt; callers decide what a revert means, so it is read as one.
  const followed = waitForTransactionReceipt(config, { hash, chainId, signal: stop.signal }).catch(
    async (error: unknown) => {
      const receipt = await getTransactionReceipt(client, { hash }).catch(() => undefined);
      if (receipt?.status === 'reverted') return receipt;
      throw error;
    },
  );
  try {
    return await Promise.race([followed, direct()]);
  } finally {
    stop.abort();
  }
}
