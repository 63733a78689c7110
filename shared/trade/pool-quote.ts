/**
 * An exact-input swap on a Uniswap V3 pool whose liquidity spans the whole price range (the
 * Graduator mints one full-range position, so liquidity is constant at every price): the output
 * follows from the pool's sqrt price, liquidity and fee alone, rounded as the pool rounds
 * (SqrtPriceMath: the price moves in the pool's favour, the output is rounded down). The pool
 * itself swaps in steps that end at tick-bitmap word boundaries, each rounded on its own, so the
 * quote is exact while a trade stays within one word and within 10^-8 beyond
 * (server/chain/pool-quote.int.test.ts checks both against the real pool).
 */

const Q96 = 2n ** 96n;

const ceilDiv = (a: bigint, b: bigint) => (a === 0n ? 0n : (a - 1n) / b + 1n);

export interface PoolState {
  sqrtPriceX96: bigint;
  liquidity: bigint;
  /** The pool's fee in hundredths of a basis point (3000 = 0.3 %). */
  feePips: number;
}

/**
 * Units of the output token for `amountIn` of the input token.
 * @param zeroForOne true when token0 goes in (the price falls)
 */
export function quoteExactInput(pool: PoolState, zeroForOne: boolean, amountIn: bigint): bigint {
  const { sqrtPriceX96: sqrtP, liquidity: L } = pool;
  const afterFee = (amountIn * BigInt(1_000_000 - pool.feePips)) / 1_000_000n;
  if (L === 0n || afterFee <= 0n) return 0n;
  if (zeroForOne) {
    const next = ceilDiv(L * Q96 * sqrtP, L * Q96 + afterFee * sqrtP);
    return (L * (sqrtP - next)) / Q96;
  }
  const next = sqrtP + (afterFee * Q96) / L;
  return (L * Q96 * (next - sqrtP)) / next / sqrtP;
}
