'use client';

import { useIsFetching } from '@tanstack/react-query';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useId, useState } from 'react';
import { LiveBadge } from '@/components/live/live-badge';
import { useLiveRefresh } from '@/components/live/use-live-refresh';
import { useTRPC } from '@/components/trpc/provider';
import { PagedList } from '@/components/ui/load-more';
import { TabList } from '@/components/ui/tab-list';
import { WatchlistPanel } from '@/components/watchlist/watchlist-panel';
import type { TokenPage } from '@/shared/api/tokens';
import { searchProblem } from './search-rules';
import { TokenTable } from './token-table';
import { type ListedTab, type TokenTab, tokenTabs } from './token-tabs';
import { useTokenListQuery } from './use-token-list-query';

const SEARCH_DEBOUNCE_MS = 300;

/**
 * The home page's token lists: tabs, a debounced search kept in the URL (`?tab=`, `?q=`) so any
 * view can be shared or reloaded, and "Load more" over the API's cursors.
 */
export function TokenExplorer({
  initial,
}: {
  initial: { tab: TokenTab; search: string; page: TokenPage | undefined };
}) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const tab = (tokenTabs.find((t) => t.id === params.get('tab'))?.id ?? 'new') as TokenTab;
  const committedSearch = params.get('q') ?? '';
  const [draft, setDraft] = useState(committedSearch);
  const problem = searchProblem(draft);
  const searchId = useId();

  // Typing updates the URL once the user pauses; the URL is the source of truth for the query.
  useEffect(() => {
    if (problem !== null || draft.trim() === committedSearch.trim()) return;
    const timer = setTimeout(() => {
      const next = new URLSearchParams(params.toString());
      if (draft.trim() === '') next.delete('q');
      else next.set('q', draft);
      router.replace(`${pathname}${next.size > 0 ? `?${next}` : ''}`, { scroll: false });
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft, committedSearch, problem, params, pathname, router]);

  const searching = committedSearch.trim() !== '';
  const watching = tab === 'watchlist' && !searching;
  const initialMatches = initial.tab === tab && initial.search === committedSearch;
  const trpc = useTRPC();
  const busy = useIsFetching({ queryKey: trpc.tokens.pathKey() }) > 0;
  const live = useLiveRefresh({ scope: 'lists' });

  const selectTab = (next: TokenTab) => {
    const search = new URLSearchParams();
    if (next !== 'new') search.set('tab', next);
    setDraft('');
    router.replace(`${pathname}${search.size > 0 ? `?${search}` : ''}`, { scroll: false });
  };

  const activeLabel = searching
    ? `Search results for “${committedSearch}”`
    : (tokenTabs.find((t) => t.id === tab)?.label ?? 'New');

  return (
    <section className="explorer" aria-label="Tokens">
      <div className="explorer-bar">
        <TabList
          tabs={tokenTabs}
          selected={searching ? null : tab}
          onSelect={selectTab}
          label="Token lists"
        />
        <div className="search">
          <label htmlFor={searchId} className="sr-only">
            Search tokens
          </label>
          <input
            id={searchId}
            type="search"
            placeholder="Search name, symbol or address"
            value={draft}
            maxLength={64}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={problem !== null}
            aria-describedby={problem ? `${searchId}-problem` : undefined}
            onChange={(event) => setDraft(event.target.value)}
          />
          {problem ? (
            <p id={`${searchId}-problem`} className="field-error" role="alert">
              {problem}
            </p>
          ) : null}
        </div>
      </div>
      <div className="explorer-status">
        <LiveBadge status={live.status} block={live.indexedThroughBlock} />
      </div>
      {tab === 'trending' && !searching ? (
        <p className="muted small">
          Trending ranks tokens by indexed trading over the last 24 hours (volume, trades and distinct
          traders). It is not an endorsement.
        </p>
      ) : null}
      {watching ? (
        <p className="muted small">Starred tokens, kept in this browser (no account), updated live.</p>
      ) : null}
      <div
        id={`tab-${tab}-panel`}
        role="tabpanel"
        aria-labelledby={searching ? undefined : `tab-${tab}`}
        aria-label={searching ? activeLabel : undefined}
        aria-busy={busy}
        className="panel flush"
      >
        {watching ? (
          <WatchlistPanel />
        ) : (
          <ListedTokens
            tab={tab === 'watchlist' ? 'new' : tab}
            search={committedSearch}
            initialPage={initialMatches ? initial.page : undefined}
            caption={activeLabel}
          />
        )}
      </div>
    </section>
  );
}

/** One list the API pages (a tab's view or a search), with "Load more". */
function ListedTokens(props: { tab: ListedTab; search: string; initialPage?: TokenPage; caption: string }) {
  const query = useTokenListQuery(props);
  return (
    <PagedList
      query={query}
      emptyText={props.search.trim() !== '' ? `No tokens match “${props.search}”.` : 'No tokens here yet.'}
    >
      {(tokens) => <TokenTable tokens={tokens} caption={props.caption} />}
    </PagedList>
  );
}
