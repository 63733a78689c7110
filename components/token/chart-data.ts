/** Pure shaping of API candles for drawing; kept apart from the chart so it is unit-testable. */

/** The power of ten that lifts the smallest positive price to at least 10,000 (four digits above 0.01). */
export function plotScale(prices: number[]): number {
  const smallest = Math.min(...prices.filter((price) => price > 0));
  if (!Number.isFinite(smallest)) return 1;
  return 10 ** Math.max(0, 4 - Math.floor(Math.log10(smallest)));
}

/**
 * Candles as drawn: each opens where the previous one closed (high and low stretched to cover
 * it), so a bucket with a single trade shows the move it made instead of a flat dash. The API's
 * open stays the first trade's price, as exchanges define it; the table below shows those values.
 */
export function continuousCandles<C extends { open: bigint; high: bigint; low: bigint; close: bigint }>(
  items: C[],
): C[] {
  return items.map((point, index) => {
    const previous = items[index - 1];
    if (!previous) return point;
    const open = previous.close;
    // biome-ignore lint/complexity/useMathMinMax: bigint has no Math.max
    const high = open > point.high ? open : point.high;
    // biome-ignore lint/complexity/useMathMinMax: bigint has no Math.min
    const low = open < point.low ? open : point.low;
    return { ...point, open, high, low };
  });
}
