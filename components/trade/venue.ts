export type Side = 'buy' | 'sell';

/**
 * Where a trade goes: the bonding curve, or the token's Uniswap V3 pool once it graduated. The
 * form (trade-form.tsx) is the same for both; a venue quotes, describes amounts and sends.
 */
export interface Venue {
  /** Label of the amount input per side (what is paid or sold). */
  inputLabel: Record<Side, string>;
  /** The wallet's balance of what is paid or sold, in base units (undefined until read). */
  balance: Record<Side, bigint | undefined>;
  formatInput(side: Side, amount: bigint): string;
  formatOutput(side: Side, amount: bigint): string;
  /** The quote for the amount entered, in the output's base units. */
  quote: bigint | undefined;
  quoting: boolean;
  /** Fees in plain words, for the quote line. */
  feeNote: string;
  /** Sends the trade (and whatever must precede it); resolves with the block it was mined in. */
  send(
    side: Side,
    amount: bigint,
    minimumOut: bigint,
    deadline: bigint,
    onStep: (message: string) => void,
  ): Promise<bigint>;
  /** Balances to read again after a trade. */
  refresh(): void;
}
