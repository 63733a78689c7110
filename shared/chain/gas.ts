/**
 * The gas limit sent with a transaction: its estimate plus a quarter. An estimate is exact only
 * for the state and block it was made on. A Uniswap V3 swap writes a price observation when its
 * block is the first of a new second, so one estimated in the second of the previous swap and
 * mined in the next runs out of gas inside the pool's callback, and by the 63/64 rule that can
 * happen while the outer call still has gas left: the router reverts with no reason. Seen on
 * anvil about once in a hundred back-to-back swaps (and in the browser tests); Uniswap's own
 * interface adds a margin for the same reason.
 */
export function withGasHeadroom(estimate: bigint): bigint {
  return estimate + estimate / 4n;
}
