'use client';

import { columns, PagedTable } from '@/components/ui/data-table';
import { formatNative, formatTokenAmount } from '@/components/ui/format';
import { LifecycleBadge } from '@/components/ui/lifecycle-badge';
import { TokenCell } from '@/components/ui/token-cell';
import type { useHoldingsQuery } from './use-wallet-queries';

const notPriced = <span className="muted">not priced</span>;

/**
 * A wallet's indexed token balances. Price and value are null for tokens the operator hid; they
 * are shown as "not priced" rather than as zero, which would be a claim.
 */
export function HoldingsTable({ query }: { query: ReturnType<typeof useHoldingsQuery> }) {
  return (
    <PagedTable
      query={query}
      emptyText="This wallet holds no indexed tokens."
      testId="holdings-table"
      caption="Token balances of this wallet"
      columns={[
        columns.token,
        { label: 'Balance', className: 'num' },
        { label: 'Price', className: 'num hide-sm' },
        { label: 'Value', className: 'num' },
        { label: 'Market', className: 'hide-sm' },
        { label: 'Market cap', className: 'num hide-md' },
      ]}
      row={(holding) => (
        <tr key={holding.token.address} data-token={holding.token.address}>
          <th scope="row">
            <TokenCell address={holding.token.address} token={holding.token} />
          </th>
          <td className="num" data-balance={holding.balance.toString()}>
            {formatTokenAmount(holding.balance)}
          </td>
          <td className="num hide-sm">{holding.price === null ? notPriced : formatNative(holding.price)}</td>
          <td className="num">{holding.value === null ? notPriced : formatNative(holding.value)}</td>
          <td className="hide-sm">
            <LifecycleBadge lifecycle={holding.lifecycle} />
          </td>
          <td className="num hide-md">{formatNative(holding.metrics.market_cap)}</td>
        </tr>
      )}
    />
  );
}
