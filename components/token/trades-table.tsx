'use client';

import { AddressLink, TxHash } from '@/components/ui/address-link';
import { PagedTable } from '@/components/ui/data-table';
import { formatNative, formatTokenAmount } from '@/components/ui/format';
import { SourceBadge } from '@/components/ui/lifecycle-badge';
import { RelativeTime } from '@/components/ui/relative-time';
import { WAD } from '@/shared/units';
import { useTradesQuery } from './use-token-queries';

/** Indexed trades, newest first (reverse chain order), with where each one came from. */
export function TradesTable({ address, symbol }: { address: string; symbol: string }) {
  const query = useTradesQuery(address);
  const indexed = query.data?.pages[0]?.indexed_through_block;
  return (
    <PagedTable
      query={query}
      emptyText="No trades indexed yet."
      loadLabel="Older trades"
      testId="trades-table"
      caption={`Trades, newest first${indexed === undefined ? '' : `, indexed through block ${indexed}`}`}
      columns={[
        { label: 'Time' },
        { label: 'Side' },
        { label: 'Price', className: 'num' },
        { label: symbol, className: 'num' },
        { label: 'Value', className: 'num' },
        { label: 'Trader', className: 'hide-sm' },
        { label: 'Market', className: 'hide-md' },
        { label: 'Block · tx', className: 'hide-md' },
      ]}
      row={(trade) => (
        <tr
          key={`${trade.transaction_hash}:${trade.log_index}`}
          data-tx={trade.transaction_hash}
          data-log={trade.log_index}
        >
          <td className="muted">
            <RelativeTime unixSeconds={trade.block_timestamp} />
          </td>
          <td className={trade.side === 'buy' ? 'up' : 'down'}>{trade.side === 'buy' ? 'Buy' : 'Sell'}</td>
          <td className="num">
            {trade.token_amount === 0n
              ? '–'
              : formatNative((trade.reserve_amount * WAD) / trade.token_amount)}
          </td>
          <td className="num">{formatTokenAmount(trade.token_amount)}</td>
          <td className="num">{formatNative(trade.reserve_amount)}</td>
          <td className="hide-sm">
            <AddressLink address={trade.trader} kind="wallet" />
          </td>
          <td className="hide-md">
            <SourceBadge source={trade.source} />
          </td>
          <td className="hide-md muted small">
            #{trade.block_number} · <TxHash hash={trade.transaction_hash} />
          </td>
        </tr>
      )}
    />
  );
}
