'use client';

import { useWatchlist } from './use-watchlist';
import { WATCHLIST_MAX } from './watchlist';

/**
 * A toggle button that stars a token into the browser's watchlist. Its name stays "Watch <token>"
 * and `aria-pressed` says whether it is watched (the WAI-ARIA toggle button pattern). `name` is
 * creator-supplied: it only ever lands in an attribute as text.
 */
export function StarButton({ address, name }: { address: string; name: string }) {
  const { addresses, toggle } = useWatchlist();
  const watched = addresses?.includes(address) ?? false;
  const full = !watched && (addresses?.length ?? 0) >= WATCHLIST_MAX;
  return (
    <button
      type="button"
      className="star"
      aria-pressed={watched}
      aria-label={`Watch ${name}`}
      aria-disabled={full || undefined}
      disabled={addresses === undefined}
      title={
        full
          ? `The watchlist holds ${WATCHLIST_MAX} tokens: unstar one first`
          : watched
            ? 'Remove from watchlist'
            : 'Add to watchlist'
      }
      onClick={() => {
        if (!full) toggle(address);
      }}
    >
      <span aria-hidden="true">{watched ? '★' : '☆'}</span>
    </button>
  );
}
