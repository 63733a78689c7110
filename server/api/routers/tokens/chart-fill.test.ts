import { describe, expect, it } from 'vitest';
import { type ChartItem, fillGaps } from './chart-fill';

const candle = (time: number, close: bigint, trades = 1): ChartItem => ({
  time,
  open: close,
  high: close,
  low: close,
  close,
  volume: 10n,
  trades,
});
const flat = (time: number, close: bigint): ChartItem => ({ ...candle(time, close, 0), volume: 0n });

describe('fillGaps (fill=previous)', () => {
  const window = { seconds: 60, limit: 10, previousClose: undefined, headTimestamp: 330 };

  it('fills empty buckets with the last close and zero volume, on to the head’s bucket', () => {
    expect(fillGaps([candle(60, 5n), candle(180, 7n)], window)).toEqual([
      candle(60, 5n),
      flat(120, 5n),
      candle(180, 7n),
      flat(240, 7n),
      flat(300, 7n),
    ]);
  });

  it('invents nothing before the first trade when no earlier close is known', () => {
    expect(fillGaps([candle(180, 7n)], { ...window, from: 0 })).toEqual([
      candle(180, 7n),
      flat(240, 7n),
      flat(300, 7n),
    ]);
  });

  it('starts from the close before `from` when there is one, and keeps at most `limit` buckets', () => {
    expect(fillGaps([candle(240, 9n)], { ...window, from: 120, limit: 3, previousClose: 4n })).toEqual([
      flat(180, 4n),
      candle(240, 9n),
      flat(300, 9n),
    ]);
  });

  it('ends at the bucket before `to`, and a window with nothing known stays empty', () => {
    expect(fillGaps([candle(60, 5n)], { ...window, to: 200 })).toEqual([
      candle(60, 5n),
      flat(120, 5n),
      flat(180, 5n),
    ]);
    expect(fillGaps([], window)).toEqual([]);
    expect(fillGaps([], { ...window, previousClose: 3n, from: 240 })).toEqual([flat(240, 3n), flat(300, 3n)]);
  });
});
