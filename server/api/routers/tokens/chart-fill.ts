import type { Chart } from '../../../../shared/api/tokens';

export type ChartItem = Chart['items'][number];

export interface FillWindow {
  /** Bucket length in seconds. */
  seconds: number;
  limit: number;
  from?: number | undefined;
  to?: number | undefined;
  /** The close of the last bucket before `from`, when there is one. */
  previousClose: bigint | undefined;
  /** The indexed head's timestamp: the series runs on to its bucket. */
  headTimestamp: number | undefined;
}

/**
 * Gap-free series (`fill=previous`): every bucket from the window's start to its end (the indexed
 * head's bucket, or the bucket before `to`), at most `limit` of them. An empty bucket repeats the
 * last close with zero volume; nothing is invented before the token's first trade.
 * @param items the window's stored buckets, oldest first (at most `limit`, all in [from, to))
 */
export function fillGaps(items: ChartItem[], window: FillWindow): ChartItem[] {
  const { seconds } = window;
  const from = window.from ?? 0;
  const to = window.to ?? Number.MAX_SAFE_INTEGER;
  const lastTime = Math.min(to - 1, window.headTimestamp ?? items.at(-1)?.time ?? -1);
  if (lastTime < 0 || (items.length === 0 && window.previousClose === undefined)) return items;
  const end = lastTime - (lastTime % seconds);
  let start = Math.max(end - (window.limit - 1) * seconds, Math.ceil(from / seconds) * seconds);
  let close = window.previousClose;
  for (const point of items) if (point.time < start) close = point.close;
  if (close === undefined) start = items.find((p) => p.time >= start)?.time ?? end + seconds;
  const byTime = new Map(items.map((p) => [p.time, p]));
  const filled: ChartItem[] = [];
  for (let time = start; time <= end; time += seconds) {
    const point = byTime.get(time);
    if (point) {
      filled.push(point);
      close = point.close;
    } else if (close !== undefined) {
      filled.push({ time, open: close, high: close, low: close, close, volume: 0n, trades: 0 });
    }
  }
  return filled;
}
