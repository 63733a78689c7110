'use client';

import { TokenTable } from '@/components/tokens/token-table';
import { TokenCell } from '@/components/ui/token-cell';
import { StarButton } from './star-button';
import { useWatchlist } from './use-watchlist';
import { useWatchlistQuery } from './use-watchlist-query';
import { WATCHLIST_MAX } from './watchlist';

const unlistedReason = { excluded: 'hidden by moderation', not_found: 'not found in this index' } as const;

/**
 * The home page's Watchlist tab: the starred tokens, newest star first, as the lists show tokens.
 * Watched tokens the lists do not show (moderated, or unknown to this index: another chain, a
 * reorged launch) are named below with their stars, so they can be dropped, never silently.
 */
export function WatchlistPanel() {
  const { addresses } = useWatchlist();
  const watched = useWatchlistQuery(addresses ?? []);
  if (addresses === undefined) return <p className="empty">Loading…</p>;
  if (addresses.length === 0)
    return (
      <p className="empty" data-testid="empty-list">
        No watched tokens yet. Press the star (☆) beside a token in any list or on its page to follow it here
        (up to {WATCHLIST_MAX} tokens).
      </p>
    );
  const listed = addresses.flatMap((address) => watched.listed.get(address) ?? []);
  const unlisted = addresses.flatMap((address) => {
    const reason = watched.unlisted.get(address);
    return reason ? [{ address, reason }] : [];
  });
  if (listed.length === 0 && unlisted.length === 0) {
    if (watched.error)
      return (
        <p className="empty" role="alert">
          Could not load: {watched.error.message}
        </p>
      );
    return <p className="empty">Loading…</p>;
  }
  return (
    <>
      {listed.length > 0 ? <TokenTable tokens={listed} caption="Watchlist, newest star first" /> : null}
      {unlisted.length > 0 ? (
        <section className="watch-unlisted" aria-labelledby="watch-unlisted-heading">
          <h2 id="watch-unlisted-heading" className="muted small">
            Watched, but not in the lists
          </h2>
          <ul>
            {unlisted.map(({ address, reason }) => (
              <li key={address} data-reason={reason}>
                <StarButton address={address} name={address} />
                <TokenCell address={address} token={undefined} missing={unlistedReason[reason]} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
