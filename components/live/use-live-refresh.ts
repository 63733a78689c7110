'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTRPC } from '@/components/trpc/provider';
import { useLiveStream } from './use-live-stream';

const MIN_REFRESH_INTERVAL_MS = 1_000;

/**
 * Keeps indexed data on screen current from the SSE stream: when the index advances past events
 * that concern this view (any launch/trade/graduation for lists, this token's for a token page),
 * the affected queries are refetched, at most once a second. A reorg refetches regardless.
 */
export function useLiveRefresh(options: { scope: 'lists' | 'token'; token?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useRef(false);
  const lastRefresh = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const refresh = () => {
    pending.current = false;
    lastRefresh.current = Date.now();
    if (options.scope === 'lists') {
      void queryClient.invalidateQueries({ queryKey: trpc.tokens.list.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.tokens.trending.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.tokens.batch.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.creators.tokens.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.wallets.holdings.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.wallets.pnl.pathKey() });
      return;
    }
    const address = options.token;
    if (!address) return;
    for (const key of [
      trpc.tokens.byAddress.queryKey({ address }),
      trpc.tokens.chart.pathKey(),
      trpc.tokens.trades.pathKey(),
      trpc.tokens.activity.pathKey(),
      trpc.tokens.holders.pathKey(),
      trpc.tokens.traders.pathKey(),
    ]) {
      void queryClient.invalidateQueries({ queryKey: key });
    }
  };

  const schedule = () => {
    if (timer.current) return;
    const wait = Math.max(0, lastRefresh.current + MIN_REFRESH_INTERVAL_MS - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      refresh();
    }, wait);
  };

  useEffect(() => () => clearTimeout(timer.current), []);

  return useLiveStream({
    token: options.scope === 'token' ? options.token : undefined,
    onEvent: (event) => {
      if (event.type === 'launch' || event.type === 'trade' || event.type === 'graduation')
        pending.current = true;
      else if (event.type === 'reorg' || event.type === 'reset') {
        pending.current = true;
        schedule();
      } else if (event.type === 'checkpoint' && pending.current) schedule();
    },
  });
}
