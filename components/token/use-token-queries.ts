'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/provider';
import type { activityKinds, TraderSort } from '@/shared/api/enums';
import type { TokenDetail } from '@/shared/api/tokens';

export const TABLE_PAGE_SIZE = 25;

/** Keyset paging: the next page is asked with the API's `next_cursor`, until it is null. */
export const cursorPaging = {
  getNextPageParam: (page: { next_cursor: string | null }) => page.next_cursor ?? undefined,
};

export function useTokenDetailQuery(address: string, initialData: TokenDetail) {
  const trpc = useTRPC();
  return useQuery(trpc.tokens.byAddress.queryOptions({ address }, { initialData }));
}

export function useTradesQuery(address: string) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.tokens.trades.infiniteQueryOptions({ address, limit: TABLE_PAGE_SIZE }, cursorPaging),
  );
}

export function useActivityQuery(address: string, kind: (typeof activityKinds)[number] | undefined) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.tokens.activity.infiniteQueryOptions({ address, limit: TABLE_PAGE_SIZE, kind }, cursorPaging),
  );
}

export function useHoldersQuery(address: string) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.tokens.holders.infiniteQueryOptions({ address, limit: TABLE_PAGE_SIZE }, cursorPaging),
  );
}

export function useTradersQuery(address: string, sort: TraderSort) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.tokens.traders.infiniteQueryOptions({ address, limit: TABLE_PAGE_SIZE, sort }, cursorPaging),
  );
}
