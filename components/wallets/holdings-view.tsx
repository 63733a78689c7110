'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useLiveRefresh } from '@/components/live/use-live-refresh';
import { useTRPC } from '@/components/trpc/provider';
import { formatNative, formatTokenAmount } from '@/components/ui/format';
import { LifecycleBadge } from '@/components/ui/lifecycle-badge';
import { PagedList } from '@/components/ui/load-more';
import { TokenAvatar } from '@/components/ui/token-avatar';

export function useHoldingsQuery(address: string) {
  const trpc = useTRPC();
  return useInfiniteQuery(
    trpc.wallets.holdings.infiniteQueryOptions(
      { address, limit: 50 },
      { getNextPageParam: (page) => page.next_cursor ?? undefined },
    ),
  );
}

/**
 * A wallet's indexed token balances. Price and value are null for tokens the operator hid; they
 * are shown as "not priced" rather than as zero, which would be a claim.
 */
export function HoldingsView({ address }: { address: string }) {
  const query = useHoldingsQuery(address);
  // Balances and prices move with every trade: follow the index like the lists do.
  useLiveRefresh({ scope: 'lists' });
  const holdings = query.data?.pages.flatMap((page) => page.items) ?? [];
  const total = holdings.reduce((sum, holding) => sum + (holding.value ?? 0n), 0n);
  return (
    <main>
      <h1>Wallet</h1>
      <p className="mono address-line">{address}</p>
      {holdings.length > 0 ? (
        <p className="wallet-total">
          <span className="muted">Value of the tokens listed below</span>{' '}
          <strong>{formatNative(total)}</strong>
        </p>
      ) : null}
      <section className="panel flush" aria-labelledby="holdings-heading">
        <h2 id="holdings-heading" className="section-title">
          Holdings
        </h2>
        <PagedList query={query} emptyText="This wallet holds no indexed tokens.">
          {(holdings) => (
            <div className="table-scroll">
              <table data-testid="holdings-table">
                <caption className="sr-only">Token balances of this wallet</caption>
                <thead>
                  <tr>
                    <th scope="col">Token</th>
                    <th scope="col" className="num">
                      Balance
                    </th>
                    <th scope="col" className="num">
                      Price
                    </th>
                    <th scope="col" className="num">
                      Value
                    </th>
                    <th scope="col" className="hide-sm">
                      Market
                    </th>
                    <th scope="col" className="num hide-md">
                      Market cap
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {holdings.map((holding) => (
                    <tr key={holding.token.address} data-token={holding.token.address}>
                      <th scope="row">
                        <Link href={`/tokens/${holding.token.address}`} className="token-cell">
                          <TokenAvatar
                            imageUrl={holding.token.image_url}
                            symbol={holding.token.symbol}
                            address={holding.token.address}
                          />
                          <span className="token-names">
                            <span className="token-name">{holding.token.name}</span>
                            <span className="token-symbol">{holding.token.symbol}</span>
                          </span>
                        </Link>
                      </th>
                      <td className="num" data-balance={holding.balance.toString()}>
                        {formatTokenAmount(holding.balance)}
                      </td>
                      <td className="num">
                        {holding.price === null ? (
                          <span className="muted">not priced</span>
                        ) : (
                          formatNative(holding.price)
                        )}
                      </td>
                      <td className="num">
                        {holding.value === null ? (
                          <span className="muted">not priced</span>
                        ) : (
                          formatNative(holding.value)
                        )}
                      </td>
                      <td className="hide-sm">
                        <LifecycleBadge lifecycle={holding.lifecycle} />
                      </td>
                      <td className="num hide-md">{formatNative(holding.metrics.market_cap)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </PagedList>
      </section>
    </main>
  );
}
