'use client';

import { AddressLink } from '@/components/ui/address-link';
import { PagedTable } from '@/components/ui/data-table';
import { formatBps, formatTokenAmount } from '@/components/ui/format';
import { useHoldersQuery } from './use-token-queries';

export function HoldersTable({ address }: { address: string }) {
  return (
    <PagedTable
      query={useHoldersQuery(address)}
      emptyText="No holders yet."
      testId="holders-table"
      caption="Holders by balance"
      columns={[
        { label: '#' },
        { label: 'Wallet' },
        { label: 'Balance', className: 'num' },
        { label: 'Share', className: 'num' },
      ]}
      row={(holder, index) => (
        <tr key={holder.wallet}>
          <td className="muted">{index + 1}</td>
          <td>
            <AddressLink address={holder.wallet} kind="wallet" />
          </td>
          <td className="num">{formatTokenAmount(holder.balance)}</td>
          <td className="num">{formatBps(holder.share_bps)}</td>
        </tr>
      )}
    />
  );
}
