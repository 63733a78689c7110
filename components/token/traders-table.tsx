'use client';

import { useState } from 'react';
import { AddressLink } from '@/components/ui/address-link';
import { columns, numWithAside, PagedTable, SpentReceivedCells } from '@/components/ui/data-table';
import { formatCount, formatTokenAmount } from '@/components/ui/format';
import { RelativeTime } from '@/components/ui/relative-time';
import { Segmented } from '@/components/ui/segmented';
import { SignedNative } from '@/components/ui/signed-native';
import { TraderLabels } from '@/components/ui/trader-label';
import { type TraderSort, traderSorts } from '@/shared/api/enums';
import { useTradersQuery } from './use-token-queries';

const sortLabels: Record<TraderSort, string> = {
  realized_pnl: 'Realized PnL',
  volume: 'Volume',
  holding: 'Holding',
};

/**
 * Who traded the token, largest first by realized PnL, volume (quote spent + received) or current
 * position, with their labels. The figures are the indexer's (docs/api.md "Traders, PnL and labels").
 */
export function TradersTable({ address, symbol }: { address: string; symbol: string }) {
  const [sort, setSort] = useState<TraderSort>('realized_pnl');
  const query = useTradersQuery(address, sort);
  return (
    <>
      <div className="filter-row">
        <Segmented
          legend="Sort traders by"
          name="traders-sort"
          options={traderSorts}
          value={sort}
          onChange={setSort}
          label={(option) => sortLabels[option]}
        />
      </div>
      <PagedTable
        query={query}
        emptyText="No traders indexed yet."
        testId="traders-table"
        caption={`Traders, largest ${sortLabels[sort].toLowerCase()} first`}
        columns={[
          { label: '#', className: 'hide-sm' },
          { label: 'Wallet' },
          { label: 'Realized PnL', className: 'num' },
          columns.unrealizedPnl,
          // The symbol is creator-supplied and may be long: read out, not drawn into a phone's row.
          numWithAside('Holding', 'sr-only', <> ({symbol})</>),
          columns.spent,
          columns.received,
          { label: 'Buys · sells', className: 'num hide-md' },
          { label: 'Last trade', className: 'hide-md' },
        ]}
        row={(trader, index) => (
          <tr key={trader.wallet} data-wallet={trader.wallet}>
            <td className="muted hide-sm">{index + 1}</td>
            <td>
              <span className="trader-cell">
                <AddressLink address={trader.wallet} kind="wallet" />
                <TraderLabels labels={trader.labels} />
              </span>
            </td>
            <td className="num" data-field="realized-pnl">
              <SignedNative value={trader.realized_pnl} />
            </td>
            <td className="num hide-sm">
              <SignedNative value={trader.unrealized_pnl} />
            </td>
            <td className="num" data-field="holding">
              {formatTokenAmount(trader.balance)}
            </td>
            <SpentReceivedCells spent={trader.quote_spent} received={trader.quote_received} />
            <td className="num hide-md">
              {formatCount(trader.buys)} · {formatCount(trader.sells)}
            </td>
            <td className="hide-md muted">
              {trader.last_trade_at === null ? (
                'received only'
              ) : (
                <RelativeTime unixSeconds={trader.last_trade_at} />
              )}
            </td>
          </tr>
        )}
      />
    </>
  );
}
