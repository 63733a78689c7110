'use client';

import {
  CompactPairCells,
  columns,
  numWithAside,
  PagedTable,
  SpentReceivedCells,
} from '@/components/ui/data-table';
import { formatTokenAmount } from '@/components/ui/format';
import { SignedNative } from '@/components/ui/signed-native';
import { TokenCell } from '@/components/ui/token-cell';
import { TraderLabels } from '@/components/ui/trader-label';
import { type usePnlQuery, useTokenNames } from './use-wallet-queries';

/**
 * The wallet's realized and unrealized PnL per token it traded or holds (docs/api.md
 * "Traders, PnL and labels"). A token hidden by moderation has no price, so no unrealized PnL:
 * shown as "–", never as zero.
 */
export function PnlTable({ query }: { query: ReturnType<typeof usePnlQuery> }) {
  const { names, pending } = useTokenNames(
    query.data?.pages.map((page) => page.items.map((item) => item.token)) ?? [],
  );
  return (
    <PagedTable
      query={query}
      emptyText="This wallet has not traded and holds no indexed token."
      testId="pnl-table"
      caption="Profit and loss per token, by token address"
      columns={[
        columns.token,
        numWithAside('Realized PnL', 'show-sm compact-change', 'unrealized'),
        columns.unrealizedPnl,
        { label: 'Position', className: 'num hide-sm' },
        columns.spent,
        columns.received,
        { label: 'Labels', className: 'hide-sm' },
      ]}
      row={(item) => (
        <tr key={item.token} data-token={item.token}>
          <th scope="row">
            <TokenCell
              address={item.token}
              token={names.get(item.token)}
              missing={pending.has(item.token) ? '…' : 'not listed'}
            />
          </th>
          <CompactPairCells
            first={<SignedNative value={item.realized_pnl} />}
            firstField="realized-pnl"
            second={<SignedNative value={item.unrealized_pnl} />}
            secondField="unrealized-pnl"
          />
          <td className="num hide-sm">{formatTokenAmount(item.balance)}</td>
          <SpentReceivedCells spent={item.quote_spent} received={item.quote_received} />
          <td className="hide-sm">
            <TraderLabels labels={item.labels} />
          </td>
        </tr>
      )}
    />
  );
}
