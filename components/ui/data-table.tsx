import type { ReactNode } from 'react';
import { formatNative } from './format';
import { PagedList, type PagedQuery } from './load-more';

/** A column heading: its text and the classes that align it (`num`) or hide it on small screens. */
export interface Column {
  label: ReactNode;
  className?: string;
}

/**
 * A numeric column whose heading carries a second part in a span of its own classes: a figure a
 * phone shows in the same cell (`show-sm`), or words read out only (`sr-only`).
 */
export const numWithAside = (label: string, asideClass: string, aside: ReactNode): Column => ({
  label: (
    <>
      {label}
      <span className={asideClass}>{aside}</span>
    </>
  ),
  className: 'num',
});

/** Headings that several tables share, so that a figure is named and hidden alike in each. */
export const columns = {
  token: { label: 'Token' },
  unrealizedPnl: { label: 'Unrealized PnL', className: 'num hide-sm' },
  spent: { label: 'Spent', className: 'num hide-md' },
  received: { label: 'Received', className: 'num hide-md' },
} as const satisfies Record<string, Column>;

/** The cells under {@link columns}' `spent` and `received`: a trader's quote amounts. */
export function SpentReceivedCells({ spent, received }: { spent: bigint; received: bigint }) {
  return (
    <>
      <td className="num hide-md">{formatNative(spent)}</td>
      <td className="num hide-md">{formatNative(received)}</td>
    </>
  );
}

/**
 * Two figures of a row: on a phone the second sits under the first in one cell; wider screens
 * give it a column of its own (its heading's `show-sm compact-change` part names it on a phone).
 * `markPhoneCopy`: the phone's copy carries `data-field` too.
 */
export function CompactPairCells({
  first,
  firstField,
  second,
  secondField,
  markPhoneCopy = false,
}: {
  first: ReactNode;
  firstField: string;
  second: ReactNode;
  secondField: string;
  markPhoneCopy?: boolean;
}) {
  return (
    <>
      <td className="num">
        <span data-field={firstField}>{first}</span>
        <span className="show-sm compact-change" data-field={markPhoneCopy ? secondField : undefined}>
          {second}
        </span>
      </td>
      <td className="num hide-sm" data-field={secondField}>
        {second}
      </td>
    </>
  );
}

/**
 * A table that scrolls sideways inside its panel rather than widening the page, with a caption for
 * screen readers and one row of column headings.
 */
export function DataTable({
  caption,
  columns,
  testId,
  className,
  children,
}: {
  caption: string;
  columns: readonly Column[];
  testId?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-scroll">
      <table data-testid={testId} className={className}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => (
              // Headings are static per table: their position is their identity.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <th key={index} scope="col" className={column.className}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A {@link DataTable} over a cursor-paged query: loading, error and empty states, "Load more". */
export function PagedTable<Item>({
  query,
  emptyText,
  loadLabel,
  row,
  ...table
}: {
  query: PagedQuery<Item>;
  emptyText: string;
  loadLabel?: string;
  caption: string;
  columns: readonly Column[];
  testId?: string;
  row: (item: Item, index: number) => ReactNode;
}) {
  return (
    <PagedList query={query} emptyText={emptyText} loadLabel={loadLabel}>
      {(items) => <DataTable {...table}>{items.map(row)}</DataTable>}
    </PagedList>
  );
}
