import type { ReactNode } from 'react';
import { PagedList, type PagedQuery } from './load-more';

/** A column heading: its text and the classes that align it (`num`) or hide it on small screens. */
export interface Column {
  label: ReactNode;
  className?: string;
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
