'use client';

import { useLiveRefresh } from '@/components/live/use-live-refresh';
import { formatNative } from '@/components/ui/format';
import { SignedNative } from '@/components/ui/signed-native';
import { StatGrid } from '@/components/ui/stat-grid';
import { HoldingsTable } from './holdings-table';
import { PnlTable } from './pnl-table';
import { useHoldingsQuery, usePnlQuery } from './use-wallet-queries';

function sum<Item>(pages: { items: Item[] }[] | undefined, value: (item: Item) => bigint | null): bigint {
  let total = 0n;
  for (const page of pages ?? []) for (const item of page.items) total += value(item) ?? 0n;
  return total;
}

/**
 * A wallet: what it holds and what it made. The totals add up the rows loaded below (the API
 * answers per token; an unpriced token adds nothing to value or unrealized PnL), and say so.
 */
export function WalletView({ address }: { address: string }) {
  const holdings = useHoldingsQuery(address);
  const pnl = usePnlQuery(address);
  // Balances, prices and PnL move with every trade: follow the index like the lists do.
  useLiveRefresh({ scope: 'lists' });
  const hasHoldings = (holdings.data?.pages[0]?.items.length ?? 0) > 0;
  const hasPnl = (pnl.data?.pages[0]?.items.length ?? 0) > 0;
  const stats = [
    ...(hasHoldings
      ? [{ label: 'Holdings value', value: formatNative(sum(holdings.data?.pages, (h) => h.value)) }]
      : []),
    ...(hasPnl
      ? [
          {
            label: 'Realized PnL',
            value: (
              <span data-total="realized_pnl">
                <SignedNative value={sum(pnl.data?.pages, (p) => p.realized_pnl)} />
              </span>
            ),
          },
          {
            label: 'Unrealized PnL',
            value: (
              <span data-total="unrealized_pnl">
                <SignedNative value={sum(pnl.data?.pages, (p) => p.unrealized_pnl)} />
              </span>
            ),
          },
        ]
      : []),
  ];
  return (
    <main>
      <h1>Wallet</h1>
      <p className="mono address-line">{address}</p>
      {stats.length > 0 ? (
        <section
          aria-labelledby="wallet-totals-heading"
          className="wallet-totals"
          data-testid="wallet-totals"
        >
          <h2 id="wallet-totals-heading" className="small muted">
            Totals of the tokens listed below
          </h2>
          <StatGrid label="Wallet totals" stats={stats} />
        </section>
      ) : null}
      <section className="panel flush" aria-labelledby="holdings-heading">
        <h2 id="holdings-heading" className="section-title">
          Holdings
        </h2>
        <HoldingsTable query={holdings} />
      </section>
      <section className="panel flush" aria-labelledby="pnl-heading">
        <h2 id="pnl-heading" className="section-title">
          Profit and loss
        </h2>
        <PnlTable query={pnl} />
      </section>
    </main>
  );
}
