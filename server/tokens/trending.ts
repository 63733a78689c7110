/** The formula as people read it (API descriptions, docs). */
export const TRENDING_FORMULA = 'ln(1 + volume / 10^18) + 2·ln(1 + distinct traders) + ln(1 + trades)';

/**
 * Trending score over the indexed last 24 hours (window `(head - 86400, head]`, head = the
 * timestamp of the indexed head block, so it is deterministic and testable):
 *
 *   score = ln(1 + volume / 10^18) + 2 * ln(1 + distinct traders) + ln(1 + trades)
 *
 * Volume counts in whole native units, so one whale cannot outweigh broad activity; distinct
 * traders weigh double because they are the hardest signal to fake cheaply. Zero when nothing
 * traded in the window, and such tokens are not in the trending list.
 */
export function trendingScore(window: { volume: bigint; trades: number; traders: number }): number {
  if (window.trades === 0) return 0;
  return (
    Math.log1p(Number(window.volume) / 1e18) + 2 * Math.log1p(window.traders) + Math.log1p(window.trades)
  );
}

/**
 * The same formula in SQL over columns named vol (numeric), n and traders (integers), which the
 * indexer uses to re-rank tokens whose trades leave the window; trending.test.ts proves the two
 * renderings agree.
 */
export const trendingScoreSql = `case when n = 0 then 0 else ln(1 + (vol / 1e18)::float8) + 2 * ln(1 + traders) + ln(1 + n) end`;

export const TRENDING_WINDOW_SECONDS = 86_400;

/**
 * An upper bound of {@link trendingScore}: its value when every input sits at its column's limit
 * (volume numeric(78,0), trades and traders int4), rounded up. No stored score exceeds it.
 */
export const TRENDING_SCORE_MAX = Math.ceil(
  trendingScore({ volume: 10n ** 78n - 1n, trades: 2 ** 31 - 1, traders: 2 ** 31 - 1 }),
);
