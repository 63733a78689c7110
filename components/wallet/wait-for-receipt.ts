import { type Hash, TransactionNotFoundError, type TransactionReceipt } from 'viem';
import { getTransaction, getTransactionReceipt } from 'viem/actions';
import type { Config } from 'wagmi';
import { waitForTransactionReceipt } from 'wagmi/actions';

/**
 * A sent transaction the wait gave up on: the node stopped knowing it (`dropped`: evicted from its
 * pool, or replaced from the wallet by a speed-up or cancel not mined yet), or stopped answering
 * (`no answer`: a frozen or unreachable node, the transaction's fate unknown). Its message says
 * what happened; the page that sent it offers what to do (keep waiting, or send anew).
 */
export class TransactionLostError extends Error {
  override name = 'TransactionLostError';
  constructor(
    readonly hash: Hash,
    readonly forMs: number,
    readonly reason: 'dropped' | 'no answer',
  ) {
    const seconds = Math.round(forMs / 1000);
    super(
      reason === 'dropped'
        ? `The network has not known this transaction for ${seconds} s: it was dropped, or replaced from your wallet (a speed-up or a cancel).`
        : `The network has not answered for ${seconds} s, so this page stopped waiting: the transaction may still be mined.`,
    );
  }
}

/** How long the wait goes on without the node saying it knows the transaction. */
export const DROPPED_AFTER_MS = 60_000;

/**
 * A sent transaction's receipt, mined successfully or not. wagmi's wait (which follows
 * replacements, e.g. a wallet's speed-up) looks again only when a new block arrives, and without a
 * timeout: anvil's automine can answer the new block number a moment before the receipt, and on a
 * quiet devnet no next block ever comes, so the wait hung (CI's trade e2e, once). The receipt is
 * therefore also asked for directly each polling interval; whichever finds it first ends both.
 * A transaction still pending waits as long as it takes. After `droppedAfterMs` in which the node
 * never said it knows the transaction (it said "no such transaction", or did not answer at all)
 * the wait rejects with TransactionLostError rather than leaving "Waiting…" on screen for good; a
 * replacement that was mined ends it before, through wagmi's. The deadline is a timer of its own:
 * a request to a frozen node (a wallet's own RPC may have no timeout) cannot hold it.
 */
export async function waitForReceipt(
  config: Config,
  chainId: number,
  hash: Hash,
  { droppedAfterMs = DROPPED_AFTER_MS }: { droppedAfterMs?: number } = {},
): Promise<TransactionReceipt> {
  const stop = new AbortController();
  const client = config.getClient({ chainId });
  // Sent just now: the node knew it. Reset by every answer that it still does.
  let heardAt = Date.now();
  let lastAnswer: TransactionLostError['reason'] = 'no answer';
  const direct = async (): Promise<TransactionReceipt> => {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, client.pollingInterval));
      if (stop.signal.aborted) throw stop.signal.reason;
      const receipt = await getTransactionReceipt(client, { hash }).catch(() => undefined);
      if (receipt) return receipt;
      await getTransaction(client, { hash }).then(
        () => {
          heardAt = Date.now();
        },
        (error: unknown) => {
          lastAnswer = error instanceof TransactionNotFoundError ? 'dropped' : 'no answer';
        },
      );
    }
  };
  const lost = new Promise<never>((_, reject) => {
    let timer: ReturnType<typeof setTimeout>;
    const check = () => {
      const silentFor = Date.now() - heardAt;
      if (silentFor >= droppedAfterMs) reject(new TransactionLostError(hash, droppedAfterMs, lastAnswer));
      else timer = setTimeout(check, droppedAfterMs - silentFor);
    };
    timer = setTimeout(check, droppedAfterMs);
    stop.signal.addEventListener('abort', () => clearTimeout(timer));
  });
  // wagmi throws on a reverted receipt; callers decide what a revert means, so it is read as one.
  const followed = waitForTransactionReceipt(config, { hash, chainId, signal: stop.signal }).catch(
    async (error: unknown) => {
      const receipt = await getTransactionReceipt(client, { hash }).catch(() => undefined);
      if (receipt?.status === 'reverted') return receipt;
      throw error;
    },
  );
  try {
    return await Promise.race([followed, direct(), lost]);
  } finally {
    stop.abort();
  }
}
