import { type Hash, TransactionNotFoundError, type TransactionReceipt } from 'viem';
import { getTransaction, getTransactionReceipt } from 'viem/actions';
import type { Config } from 'wagmi';
import { waitForTransactionReceipt } from 'wagmi/actions';

/**
 * A sent transaction the node has stopped knowing: dropped from its pool (evicted, or never
 * propagated), or replaced from the wallet by a speed-up or cancel that was not mined yet.
 */
export class TransactionDroppedError extends Error {
  override name = 'TransactionDroppedError';
  constructor(
    readonly hash: Hash,
    unknownForMs: number,
  ) {
    super(
      `The network has not known this transaction for ${Math.round(unknownForMs / 1000)} s: it was dropped, or replaced from your wallet (a speed-up or a cancel). Check your wallet's activity before sending it again.`,
    );
  }
}

/** How long the node may not know a transaction before the wait gives it up as dropped. */
export const DROPPED_AFTER_MS = 60_000;

/**
 * A sent transaction's receipt, mined successfully or not. wagmi's wait (which follows
 * replacements, e.g. a wallet's speed-up) looks again only when a new block arrives, and without a
 * timeout: anvil's automine can answer the new block number a moment before the receipt, and on a
 * quiet devnet no next block ever comes, so the wait hung (CI's trade e2e, once). The receipt is
 * therefore also asked for directly each polling interval; whichever finds it first ends both.
 * A transaction still pending waits as long as it takes; one the node no longer knows for
 * `droppedAfterMs` (a replacement that was mined ends the wait before, through wagmi's) rejects
 * with TransactionDroppedError rather than leaving "Waiting…" on screen for good.
 */
export async function waitForReceipt(
  config: Config,
  chainId: number,
  hash: Hash,
  { droppedAfterMs = DROPPED_AFTER_MS }: { droppedAfterMs?: number } = {},
): Promise<TransactionReceipt> {
  const stop = new AbortController();
  const client = config.getClient({ chainId });
  const direct = async (): Promise<TransactionReceipt> => {
    let unknownSince: number | undefined;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, client.pollingInterval));
      if (stop.signal.aborted) throw stop.signal.reason;
      const receipt = await getTransactionReceipt(client, { hash }).catch(() => undefined);
      if (receipt) return receipt;
      // Only the node's "no such transaction" counts: a node that does not answer says nothing.
      const known = await getTransaction(client, { hash }).then(
        () => true,
        (error: unknown) => !(error instanceof TransactionNotFoundError),
      );
      if (known) unknownSince = undefined;
      else {
        unknownSince ??= Date.now();
        if (Date.now() - unknownSince >= droppedAfterMs)
          throw new TransactionDroppedError(hash, droppedAfterMs);
      }
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
