'use client';

import { useState } from 'react';
import { TxHash } from '@/components/ui/address-link';
import { PagedTable } from '@/components/ui/data-table';
import { RelativeTime } from '@/components/ui/relative-time';
import { activityKinds } from '@/shared/api/enums';
import { useActivityQuery } from './use-token-queries';

type ActivityKind = (typeof activityKinds)[number];

const kindLabels: Record<ActivityKind, string> = {
  launch: 'Launch',
  trade: 'Curve trade',
  graduation: 'Graduation',
  transfer: 'Transfer',
  swap: 'Pool swap',
};

/** Decoded chain events of one token with full provenance, filterable by kind. */
export function ActivityTable({ address }: { address: string }) {
  const [kind, setKind] = useState<ActivityKind | undefined>(undefined);
  const query = useActivityQuery(address, kind);
  return (
    <>
      <div className="filter-row">
        <label htmlFor="activity-kind">Kind</label>
        <select
          id="activity-kind"
          value={kind ?? ''}
          onChange={(event) => setKind((event.target.value || undefined) as ActivityKind | undefined)}
        >
          <option value="">All events</option>
          {activityKinds.map((value) => (
            <option key={value} value={value}>
              {kindLabels[value]}
            </option>
          ))}
        </select>
      </div>
      <PagedTable
        query={query}
        emptyText="No events."
        testId="activity-table"
        caption="Decoded chain events, newest first"
        columns={[
          { label: 'Event' },
          { label: 'Time' },
          { label: 'Details' },
          { label: 'Block · tx · log', className: 'hide-sm' },
        ]}
        row={(event) => (
          <tr key={`${event.transaction_hash}:${event.log_index}`}>
            <td>
              <span className="badge">{kindLabels[event.kind]}</span>
            </td>
            <td className="muted">
              <RelativeTime unixSeconds={event.block_timestamp} />
            </td>
            <td>
              <dl className="event-fields">
                {Object.entries(event.data).map(([field, value]) => (
                  <div key={field}>
                    <dt>{field}</dt>
                    <dd className="mono">{value}</dd>
                  </div>
                ))}
              </dl>
            </td>
            <td className="hide-sm muted small">
              #{event.block_number} · <TxHash hash={event.transaction_hash} /> · {event.log_index}
            </td>
          </tr>
        )}
      />
    </>
  );
}
