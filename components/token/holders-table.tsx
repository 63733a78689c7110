'use client';

import { AddressLink } from '@/components/ui/address-link';
import { formatBps, formatTokenAmount } from '@/components/ui/format';
import { PagedList } from '@/components/ui/load-more';
import { useHoldersQuery } from './use-token-queries';

export function HoldersTable({ address }: { address: string }) {
  return (
    <PagedList query={useHoldersQuery(address)} emptyText="No holders yet.">
      {(holders) => (
        <div className="table-scroll">
          <table data-testid="holders-table">
            <caption className="sr-only">Holders by balance</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Wallet</th>
                <th scope="col" className="num">
                  Balance
                </th>
                <th scope="col" className="num">
                  Share
                </th>
              </tr>
            </thead>
            <tbody>
              {holders.map((holder, index) => (
                <tr key={holder.wallet}>
                  <td className="muted">{index + 1}</td>
                  <td>
                    <AddressLink address={holder.wallet} kind="wallet" />
                  </td>
                  <td className="num">{formatTokenAmount(holder.balance)}</td>
                  <td className="num">{formatBps(holder.share_bps)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </PagedList>
  );
}
