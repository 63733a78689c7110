import type { BenchServer } from './servers';

/** The read cache's outcomes so far, summed over every series (and worker) of the counter. */
export interface CacheCounts {
  hit: number;
  miss: number;
  /** A miss that waited for another request's fill of the same key. */
  joined: number;
}

const counter = 'launchdex_read_cache_requests_total';

/**
 * `launchdex_read_cache_requests_total` by its `result` label, from GET /api/metrics (with
 * `--workers N`, every worker aggregated). Undefined when the server does not export the counter.
 */
export async function readCacheCounts(server: BenchServer, token: string): Promise<CacheCounts | undefined> {
  const response = await fetch(`${server.baseUrl}/api/metrics`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /api/metrics: ${response.status} ${text.slice(0, 200)}`);
  if (!new RegExp(`^# TYPE ${counter} `, 'm').test(text)) return undefined;
  const counts: CacheCounts = { hit: 0, miss: 0, joined: 0 };
  for (const [, labels, value] of text.matchAll(new RegExp(`^${counter}\\{([^}]*)\\}\\s+(\\S+)`, 'gm'))) {
    const result = /(?:^|,)result="([^"]*)"/.exec(labels ?? '')?.[1];
    if (result === 'hit' || result === 'miss' || result === 'joined') counts[result] += Number(value);
  }
  return counts;
}

/** The counts of a run: after minus before; undefined when either scrape had no counter. */
export function cacheDelta(
  before: CacheCounts | undefined,
  after: CacheCounts | undefined,
): CacheCounts | undefined {
  if (!before || !after) return undefined;
  return {
    hit: after.hit - before.hit,
    miss: after.miss - before.miss,
    joined: after.joined - before.joined,
  };
}

/** `hit / joined / miss` as percentages of the run's cacheable requests, or `n/a`. */
export function cacheShares(counts: CacheCounts | undefined): string {
  if (!counts) return 'n/a';
  const total = counts.hit + counts.miss + counts.joined;
  if (total <= 0) return 'n/a';
  // Two decimals: a miss per key and bump is a small share of a cached run, but not none.
  const share = (value: number) => ((value / total) * 100).toFixed(2);
  return `${share(counts.hit)} / ${share(counts.joined)} / ${share(counts.miss)}`;
}
