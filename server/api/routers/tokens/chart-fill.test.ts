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

  it.each<[string, ChartItem[], Partial<Parameters<typeof fillGaps>[1]>, ChartItem[]]>([
    [
      'fills empty buckets with the last close and zero volume, on to the head’s bucket',
      [candle(60, 5n), candle(180, 7n)],
      {},
      [candle(60, 5n), flat(120, 5n), candle(180, 7n), flat(240, 7n), flat(300, 7n)],
    ],
    [
      'invents nothing before the first trade when no earlier close is known',
      [candle(180, 7n)],
      { from: 0 },
      [candle(180, 7n), flat(240, 7n), flat(300, 7n)],
    ],
    [
      'starts from the close before `from` when there is one, and keeps at most `limit` buckets',
      [candle(240, 9n)],
      { from: 120, limit: 3, previousClose: 4n },
      [flat(180, 4n), candle(240, 9n), flat(300, 9n)],
    ],
    [
      'ends at the bucket before `to`',
      [candle(60, 5n)],
      { to: 200 },
      [candle(60, 5n), flat(120, 5n), flat(180, 5n)],
    ],
    ['a window with nothing known stays empty', [], {}, []],
    [
      'a window with no trade but an earlier close is flat at that close',
      [],
      { previousClose: 3n, from: 240 },
      [flat(240, 3n), flat(300, 3n)],
    ],
  ])('%s', (_name, candles, options, expected) => {
    expect(fillGaps(candles, { ...window, ...options })).toEqual(expected);
  });
});
