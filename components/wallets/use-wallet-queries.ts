'use client';

import { useInfiniteQuery, useQueries } from '@tanstack/react-query';
import { cursorPaging } from '@/components/token/use-token-queries';
import { useTRPC } from '@/components/trpc/provider';
import type { TokenListItem } from '@/shared/api/tokens';

/** Rows per page of a wallet's tables: one page of PnL asks names in one batch (at most 50). */
const WALLET_PAGE_SIZE = 50;

export function useHoldingsQuery(address: string) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.wallets.holdings.infiniteQueryOptions({ address, limit: WALLET_PAGE_SIZE }, cursorPaging),
  );
}

export function usePnlQuery(address: string) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.wallets.pnl.infiniteQueryOptions({ address, limit: WALLET_PAGE_SIZE }, cursorPaging),
  );
}

/**
 * Names, symbols and images of tokens known by address only (a PnL row carries the address),
 * one batch lookup per loaded page, and the addresses still being looked up. Tokens hidden by
 * moderation are not in the answer.
 */
export function useTokenNames(pages: readonly (readonly string[])[]): {
  names: Map<string, TokenListItem>;
  pending: Set<string>;
} {
  const trpc = useTRPC();
  const asked = pages.filter((addresses) => addresses.length > 0);
  const answers = useQueries({
    queries: asked.map((addresses) => trpc.tokens.batch.queryOptions({ addresses: addresses.join(',') })),
  });
  const names = new Map<string, TokenListItem>();
  const pending = new Set<string>();
  answers.forEach((answer, index) => {
    if (answer.isPending) for (const address of asked[index] ?? []) pending.add(address);
    for (const item of answer.data?.items ?? []) names.set(item.address, item);
  });
  return { names, pending };
}
