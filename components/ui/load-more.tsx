'use client';

import type { ReactNode } from 'react';

/** The slice of a TanStack infinite query a cursor-paged list needs. */
export interface PagedQuery<Item> {
  data: { pages: { items: Item[] }[] } | undefined;
  isPending: boolean;
  error: { message: string } | null;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/**
 * A cursor-paged list: loading, error and empty states, the rows the pages hold so far (rendered
 * by `children`), and "Load more" until the API's last page.
 */
export function PagedList<Item>({
  query,
  emptyText,
  loadLabel = 'Load more',
  children,
}: {
  query: PagedQuery<Item>;
  emptyText: string;
  loadLabel?: string;
  children: (items: Item[]) => ReactNode;
}) {
  const items = query.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      {query.isPending ? (
        <p className="empty">Loading…</p>
      ) : query.error ? (
        <p className="empty" role="alert">
          Could not load: {query.error.message}
        </p>
      ) : items.length === 0 ? (
        <p className="empty" data-testid="empty-list">
          {emptyText}
        </p>
      ) : (
        children(items)
      )}
      {query.hasNextPage ? (
        <div className="load-more">
          <button
            type="button"
            className="button"
            onClick={() => void query.fetchNextPage()}
            disabled={query.isFetchingNextPage}
          >
            {query.isFetchingNextPage ? 'Loading…' : loadLabel}
          </button>
        </div>
      ) : null}
    </>
  );
}
