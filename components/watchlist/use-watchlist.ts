'use client';

import { useMemo, useSyncExternalStore } from 'react';
import { parseWatchlist, toggleWatched, WATCHLIST_KEY } from './watchlist';

/** The stored text ('' when absent or when storage is off: private modes and policies throw). */
function readStored(): string {
  try {
    return localStorage.getItem(WATCHLIST_KEY) ?? '';
  } catch {
    return '';
  }
}

/** Another tab's write arrives as a `storage` event; `key` null means the storage was cleared. */
function subscribe(onChange: () => void): () => void {
  const listener = (event: StorageEvent) => {
    if (event.key === WATCHLIST_KEY || event.key === null) onChange();
  };
  window.addEventListener('storage', listener);
  return () => window.removeEventListener('storage', listener);
}

/**
 * Toggles against what is stored now, not what this render saw: another tab may have written since.
 * Storage that refuses the write (full, or off) leaves the star as it was.
 */
function toggle(address: string): void {
  const result = toggleWatched(parseWatchlist(readStored()), address);
  if (result.outcome === 'full') return;
  const stored = JSON.stringify(result.addresses);
  try {
    localStorage.setItem(WATCHLIST_KEY, stored);
  } catch {
    return;
  }
  // The browser tells only other tabs; this tab's stars and list hear the same event.
  window.dispatchEvent(new StorageEvent('storage', { key: WATCHLIST_KEY, newValue: stored }));
}

/**
 * The browser's watchlist (no account: localStorage, synced across tabs). `addresses` is undefined
 * until the page is hydrated: the server cannot know it, so stars start unpressed and disabled.
 */
export function useWatchlist(): {
  addresses: readonly string[] | undefined;
  toggle: (address: string) => void;
} {
  // The snapshot is the stored string: equal text compares equal, so React re-renders only on change.
  const stored = useSyncExternalStore(subscribe, readStored, () => null);
  const addresses = useMemo(() => (stored === null ? undefined : parseWatchlist(stored)), [stored]);
  return { addresses, toggle };
}
