/**
 * Unrealized PnL at `price` (quote per whole token, 18 decimals): value of the position − its cost.
 * @example unrealizedPnl(150n, 3000n, 30n * 10n ** 18n) // 1500n
 */
export function unrealizedPnl(balance: bigint, costBasis: bigint, price: bigint): bigint {
  const held = balance > 0n ? balance : 0n;
  return (held * price) / 10n ** 18n - costBasis;
}
