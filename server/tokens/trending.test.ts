import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRENDING_SCORE_MAX, trendingScore, trendingScoreSql } from './trending';

const db = new PGlite();
// Starting PGlite (a WebAssembly PostgreSQL) takes seconds on a loaded 2-core machine: done here,
// with room, so the first comparison is not timed against the start-up (CI timed it out once).
beforeAll(() => db.waitReady, 60_000);
afterAll(() => db.close());

describe('trending score', () => {
  const windows = [
    { volume: 0n, trades: 0, traders: 0 },
    { volume: 1n, trades: 1, traders: 1 },
    { volume: 10n ** 18n, trades: 3, traders: 2 },
    { volume: 123_456_789n * 10n ** 15n, trades: 40, traders: 17 },
    { volume: 10n ** 30n, trades: 2_000_000, traders: 900_000 },
  ];

  it.each(windows)('the TypeScript and SQL renderings agree on %o', async (window) => {
    const { rows } = await db.query<{ score: number }>(
      `select ${trendingScoreSql} as score from (select $1::numeric as vol, $2::int as n, $3::int as traders) w`,
      [window.volume.toString(), window.trades, window.traders],
    );
    expect(Number(rows[0]?.score)).toBeCloseTo(trendingScore(window), 12);
  });

  it('is zero without trades, grows with each input, and stays below its declared bound', () => {
    expect(trendingScore({ volume: 5n, trades: 0, traders: 0 })).toBe(0);
    const base = { volume: 10n ** 18n, trades: 5, traders: 3 };
    expect(trendingScore({ ...base, volume: 2n * 10n ** 18n })).toBeGreaterThan(trendingScore(base));
    expect(trendingScore({ ...base, trades: 6 })).toBeGreaterThan(trendingScore(base));
    // One more distinct trader outweighs one more trade: breadth is the harder signal to fake.
    expect(trendingScore({ ...base, traders: 4 }) - trendingScore(base)).toBeGreaterThan(
      trendingScore({ ...base, trades: 6 }) - trendingScore(base),
    );
    expect(
      trendingScore({ volume: 10n ** 77n, trades: 2 ** 31 - 1, traders: 2 ** 31 - 1 }),
    ).toBeLessThanOrEqual(TRENDING_SCORE_MAX);
  });
});
