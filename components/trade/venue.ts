import type { Config } from 'wagmi';
import { waitForReceipt } from '@/components/wallet/wait-for-receipt';

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

/** Waits for a sent transaction; its block, or an error when it was mined but reverted. */
export async function minedBlock(config: Config, chainId: number, hash: `0x${string}`): Promise<bigint> {
  const receipt = await waitForReceipt(config, chainId, hash);
  if (receipt.status !== 'success') throw new Error('The transaction was mined but reverted.');
  return receipt.blockNumber;
}
