'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { useLiveRefresh } from '@/components/live/use-live-refresh';
import { TokenTable } from '@/components/tokens/token-table';
import { useTRPC } from '@/components/trpc/provider';
import { formatCount, formatNative, formatTimestamp } from '@/components/ui/format';
import { PagedList } from '@/components/ui/load-more';
import { StatGrid } from '@/components/ui/stat-grid';
import type { Creator } from '@/shared/api/creators';

export function useCreatorTokensQuery(address: string) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.creators.tokens.infiniteQueryOptions(
      { address, limit: 20 },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
}

/** A creator's record and every token they launched, newest first. */
export function CreatorView({ creator }: { creator: Creator }) {
  const query = useCreatorTokensQuery(creator.address);
  useLiveRefresh({ scope: 'lists' });
  const stats = [
    { label: 'Tokens launched', value: formatCount(creator.tokens_launched) },
    { label: 'Graduated', value: formatCount(creator.tokens_graduated) },
    { label: 'Total volume', value: formatNative(creator.total_volume) },
    { label: 'First launch', value: formatTimestamp(creator.first_launch_at) },
    { label: 'Latest launch', value: formatTimestamp(creator.last_launch_at) },
  ];
  return (
    <main>
      <h1>Creator</h1>
      <p className="mono address-line">{creator.address}</p>
      <StatGrid label="Creator record" stats={stats} />
      <section className="panel flush" aria-labelledby="creator-tokens-heading">
        <h2 id="creator-tokens-heading" className="section-title">
          Tokens
        </h2>
        <PagedList query={query} emptyText="No listed tokens.">
          {(tokens) => <TokenTable tokens={tokens} caption="Tokens by this creator, newest first" />}
        </PagedList>
      </section>
    </main>
  );
}
