'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/provider';
import type { TokenDetail } from '@/shared/api/tokens';

export const TABLE_PAGE_SIZE = 25;

export function useTokenDetailQuery(address: string, initialData: TokenDetail) {
  const trpc = useTRPC();
  return useQuery(trpc.tokens.byAddress.queryOptions({ address }, { initialData }));
}

export function useTradesQuery(address: string) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.tokens.trades.infiniteQueryOptions(
      { address, limit: TABLE_PAGE_SIZE },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
}

export function useActivityQuery(
  address: string,
  kind: 'launch' | 'trade' | 'graduation' | 'transfer' | 'swap' | undefined,
) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.tokens.activity.infiniteQueryOptions(
      { address, limit: TABLE_PAGE_SIZE, kind },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
}

export function useHoldersQuery(address: string) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.tokens.holders.infiniteQueryOptions(
      { address, limit: TABLE_PAGE_SIZE },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
}
