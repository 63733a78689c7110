'use client';

import { keepPreviousData, useQueries } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/provider';
import { TOKENS_BATCH_MAX } from '@/shared/api/limits';
import type { TokenListItem, TokensBatch } from '@/shared/api/tokens';

/** What the batch reads said about each watched address, from whichever chunk answered it. */
export interface WatchedTokens {
  listed: Map<string, TokenListItem>;
  /** Not shown in lists: `excluded` (hidden by moderation) or `not_found` (not a token this index knows). */
  unlisted: Map<string, 'excluded' | 'not_found'>;
  isPending: boolean;
  error: { message: string } | null;
}

type BatchResult = { data?: TokensBatch; isPending: boolean; error: { message: string } | null };

function combine(results: BatchResult[]): WatchedTokens {
  const answer: WatchedTokens = { listed: new Map(), unlisted: new Map(), isPending: false, error: null };
  for (const result of results) {
    if (!result.data) {
      answer.isPending ||= result.isPending;
      answer.error ??= result.error;
      continue;
    }
    for (const item of result.data.items) answer.listed.set(item.address, item);
    for (const address of result.data.excluded) answer.unlisted.set(address, 'excluded');
    for (const address of result.data.not_found) answer.unlisted.set(address, 'not_found');
  }
  return answer;
}

/**
 * The watched tokens through the batch read, {@link TOKENS_BATCH_MAX} addresses a call. While a
 * changed chunk is read again its previous answer stays on screen; the caller shows only what is
 * still watched, so an unstarred row leaves at once.
 */
export function useWatchlistQuery(addresses: readonly string[]): WatchedTokens {
  const trpc = useTRPC();
  const chunks: string[] = [];
  for (let start = 0; start < addresses.length; start += TOKENS_BATCH_MAX)
    chunks.push(addresses.slice(start, start + TOKENS_BATCH_MAX).join(','));
  return useQueries({
    queries: chunks.map((chunk) => ({
      ...trpc.tokens.batch.queryOptions({ addresses: chunk }),
      placeholderData: keepPreviousData,
    })),
    combine,
  });
}
