'use client';

import { PagedTable } from '@/components/ui/data-table';
import { formatNative, formatTokenAmount } from '@/components/ui/format';
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
        { label: 'Token' },
        {
          label: (
            <>
              Realized PnL<span className="show-sm compact-change">unrealized</span>
            </>
          ),
          className: 'num',
        },
        { label: 'Unrealized PnL', className: 'num hide-sm' },
        { label: 'Position', className: 'num hide-sm' },
        { label: 'Spent', className: 'num hide-md' },
        { label: 'Received', className: 'num hide-md' },
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
          <td className="num">
            <span data-field="realized-pnl">
              <SignedNative value={item.realized_pnl} />
            </span>
            {/* On a phone the unrealized PnL sits under the realized, in the same cell. */}
            <span className="show-sm compact-change">
              <SignedNative value={item.unrealized_pnl} />
            </span>
          </td>
          <td className="num hide-sm" data-field="unrealized-pnl">
            <SignedNative value={item.unrealized_pnl} />
          </td>
          <td className="num hide-sm">{formatTokenAmount(item.balance)}</td>
          <td className="num hide-md">{formatNative(item.quote_spent)}</td>
          <td className="num hide-md">{formatNative(item.quote_received)}</td>
          <td className="hide-sm">
            <TraderLabels labels={item.labels} />
          </td>
        </tr>
      )}
    />
  );
}
