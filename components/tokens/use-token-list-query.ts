'use client';

import { type InfiniteData, useInfiniteQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/provider';
import type { TokenPage } from '@/shared/api/tokens';
import { type ListedTab, TOKEN_PAGE_SIZE } from './token-tabs';

/**
 * One tab (or a search) of the token lists, paged by the API's keyset cursor. `initialPage` is
 * the first page the server rendered, so the list paints before any client request.
 */
export function useTokenListQuery(params: { tab: ListedTab; search: string; initialPage?: TokenPage }) {
  const trpc = useTRPC();
  const getNextPageParam = (page: TokenPage) => page.next_cursor ?? undefined;
  // tRPC types page params as `string | null` but sends `cursor` only when the param is defined,
  // and the first page has none: `undefined` is the honest value.
  const initialData: InfiniteData<TokenPage, string | null> | undefined = params.initialPage
    ? { pages: [params.initialPage], pageParams: [undefined as unknown as null] }
    : undefined;
  const search = params.search.trim();
  const trending = search === '' && params.tab === 'trending';
  const listOptions = trpc.tokens.list.infiniteQueryOptions(
    search !== ''
      ? { limit: TOKEN_PAGE_SIZE, search }
      : { limit: TOKEN_PAGE_SIZE, view: params.tab === 'trending' ? 'new' : params.tab },
    { getNextPageParam, initialData: trending ? undefined : initialData },
  );
  const trendingOptions = trpc.tokens.trending.infiniteQueryOptions(
    { limit: TOKEN_PAGE_SIZE },
    { getNextPageParam, initialData: trending ? initialData : undefined },
  );
  const listQuery = useInfiniteQuery({ ...listOptions, enabled: !trending });
  const trendingQuery = useInfiniteQuery({ ...trendingOptions, enabled: trending });
  return trending ? trendingQuery : listQuery;
}
