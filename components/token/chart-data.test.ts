import { describe, expect, it } from 'vitest';
import { continuousCandles, plotScale } from './chart-data';

const candle = (open: bigint, high: bigint, low: bigint, close: bigint) => ({
  open,
  high,
  low,
  close,
  time: 0,
});

describe('chart data', () => {
  it('opens each drawn candle at the previous close and stretches its range to include it', () => {
    const drawn = continuousCandles([
      candle(10n, 12n, 9n, 11n),
      candle(15n, 15n, 15n, 15n),
      candle(8n, 9n, 7n, 9n),
    ]);
    expect(drawn[0]).toEqual(candle(10n, 12n, 9n, 11n));
    expect(drawn[1]).toEqual(candle(11n, 15n, 11n, 15n));
    expect(drawn[2]).toEqual(candle(15n, 15n, 7n, 9n));
  });

  it('keeps an empty series empty', () => {
    expect(continuousCandles([])).toEqual([]);
  });

  it('scales the smallest price to at least 10,000 so the 0.01 price step keeps four digits', () => {
    expect(plotScale([0.0000000281, 0.00000005])).toBe(1e12);
    expect(plotScale([12.5])).toBe(1e3);
    expect(plotScale([20_000])).toBe(1);
    expect(plotScale([])).toBe(1);
    expect(plotScale([0])).toBe(1);
    const scale = plotScale([0.0000000281]);
    expect(0.0000000281 * scale).toBeGreaterThanOrEqual(10_000);
  });
});
