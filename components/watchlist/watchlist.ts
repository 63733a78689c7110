/**
 * Where the watchlist lives in localStorage. The format's version is part of the key: a later format
 * takes a new key and never misreads this one.
 */
export const WATCHLIST_KEY = 'launchdex.watchlist.v1';

/** Most tokens one watchlist holds: four batch reads (`TOKENS_BATCH_MAX`) at most. */
export const WATCHLIST_MAX = 200;

/** Stored text longer than this is not a watchlist we wrote (200 quoted addresses are ~8.6 kB). */
const STORED_MAX_CHARS = 16_384;

const addressPattern = /^0x[0-9a-f]{40}$/;

/**
 * The watched addresses in `stored` (the localStorage value): lowercase, each once, newest first,
 * at most {@link WATCHLIST_MAX}. Anything else the value holds (broken JSON, another shape, entries
 * that are not addresses, oversized text) is ignored, never thrown: the key is shared with every
 * script of the origin and any version of this app.
 */
export function parseWatchlist(stored: string | null): string[] {
  if (!stored || stored.length > STORED_MAX_CHARS) return [];
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const addresses = new Set<string>();
  for (const entry of value) {
    if (addresses.size === WATCHLIST_MAX) break;
    if (typeof entry !== 'string') continue;
    const address = entry.toLowerCase();
    if (addressPattern.test(address)) addresses.add(address);
  }
  return [...addresses];
}

export type WatchToggle = { outcome: 'added' | 'removed' | 'full'; addresses: string[] };

/**
 * Stars or unstars `address`: a newly watched token goes first. A full watchlist refuses a new
 * token (`full`, unchanged) rather than silently dropping the oldest one.
 */
export function toggleWatched(addresses: readonly string[], address: string): WatchToggle {
  const key = address.toLowerCase();
  if (addresses.includes(key))
    return { outcome: 'removed', addresses: addresses.filter((entry) => entry !== key) };
  if (addresses.length >= WATCHLIST_MAX) return { outcome: 'full', addresses: [...addresses] };
  return { outcome: 'added', addresses: [key, ...addresses] };
}
