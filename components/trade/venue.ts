import type { Config } from 'wagmi';
import { TransactionLostError, waitForReceipt } from '@/components/wallet/wait-for-receipt';

export type Side = 'buy' | 'sell';

/**
 * Where a trade goes: the bonding curve, or the token's Uniswap V3 pool once it graduated. The
 * form (trade-form.tsx) is the same for both: it pays native value or sells tokens, and shows
 * what comes back in the same units (tokens for a buy, native value for a sale). A venue quotes
 * and sends.
 */
export interface Venue {
  /** What the amount entered returns: tokens for a buy, native base units for a sale. */
  quote: bigint | undefined;
  quoting: boolean;
  /** Fees in plain words, for the quote line. */
  feeNote: string;
  /** What else the quoted trade does, in plain words (a buy capped at graduation and its refund). */
  quoteNote?: string;
  /** Why the venue would refuse the amount entered; no quote then. */
  quoteProblem?: string;
  /**
   * Sends the trade (and whatever must precede it); resolves with the block it was mined in.
   * `minimumOut` is in the quote's units.
   */
  send(
    side: Side,
    amount: bigint,
    minimumOut: bigint,
    deadline: bigint,
    onStep: (message: string) => void,
  ): Promise<bigint>;
  /** Reads the venue's own state again after a trade (allowances, its stablecoin balance). */
  refresh?(): void;
}

/**
 * A transaction of a trade that the wait gave up on: the form offers to keep waiting for it.
 * `before`: what it was when not the trade itself (the wrap or approval the trade needed first),
 * so a kept wait that ends in a block says the trade is still to send.
 */
export class TradeTransactionLostError extends TransactionLostError {
  override name = 'TradeTransactionLostError';
  constructor(
    lost: TransactionLostError,
    readonly before?: 'wrap' | 'approval',
  ) {
    super(lost.hash, lost.forMs, lost.reason);
  }
}

/** Waits for a sent transaction; its block, or an error when it was mined but reverted or was lost. */
export async function minedBlock(
  config: Config,
  chainId: number,
  hash: `0x${string}`,
  before?: TradeTransactionLostError['before'],
): Promise<bigint> {
  let receipt: Awaited<ReturnType<typeof waitForReceipt>>;
  try {
    receipt = await waitForReceipt(config, chainId, hash);
  } catch (error) {
    throw error instanceof TransactionLostError ? new TradeTransactionLostError(error, before) : error;
  }
  if (receipt.status !== 'success') throw new Error('The transaction was mined but reverted.');
  return receipt.blockNumber;
}
