'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useId, useState } from 'react';
import { LiveBadge } from '@/components/live/live-badge';
import { useLiveRefresh } from '@/components/live/use-live-refresh';
import { PagedList } from '@/components/ui/load-more';
import { TabList } from '@/components/ui/tab-list';
import type { TokenPage } from '@/shared/api/tokens';
import { searchProblem } from './search-rules';
import { TokenTable } from './token-table';
import { type TokenTab, tokenTabs } from './token-tabs';
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
  const initialMatches = initial.tab === tab && initial.search === committedSearch;
  const query = useTokenListQuery({
    tab,
    search: committedSearch,
    initialPage: initialMatches ? initial.page : undefined,
  });
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
      <div
        id={`tab-${tab}-panel`}
        role="tabpanel"
        aria-labelledby={searching ? undefined : `tab-${tab}`}
        aria-label={searching ? activeLabel : undefined}
        aria-busy={query.isFetching}
        className="panel flush"
      >
        <PagedList
          query={query}
          emptyText={searching ? `No tokens match “${committedSearch}”.` : 'No tokens here yet.'}
        >
          {(tokens) => <TokenTable tokens={tokens} caption={activeLabel} />}
        </PagedList>
      </div>
    </section>
  );
}
