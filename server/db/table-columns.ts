import { type Column, getTableColumns, type Table } from 'drizzle-orm';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import type { ColumnType } from './bulk';

/** The bulk writers' cast for a column's SQL type (bulk.ts): numeric(78, 0) is a numeric. */
function bulkType(column: Column): ColumnType {
  const sqlType = column.getSQLType();
  if (sqlType.startsWith('numeric')) return 'numeric';
  if (sqlType === 'double precision') return 'float8';
  if (
    sqlType === 'text' ||
    sqlType === 'bigint' ||
    sqlType === 'integer' ||
    sqlType === 'smallint' ||
    sqlType === 'boolean' ||
    sqlType === 'jsonb'
  )
    return sqlType;
  throw new Error(`column ${column.name}: no bulk type for ${sqlType}`);
}

/**
 * `table`'s columns as the bulk writers take them (SQL name → cast), in the schema's order:
 * every column, or those named (by SQL name) in `names`, in that order. Lists of columns are
 * read from the schema, so a column added there is not forgotten in one of them.
 */
export function bulkColumns(table: Table, names?: readonly string[]): Record<string, ColumnType> {
  const byName = new Map(Object.values(getTableColumns(table)).map((c) => [c.name, c]));
  const columns: Record<string, ColumnType> = {};
  for (const name of names ?? byName.keys()) {
    const column = byName.get(name);
    if (!column) throw new Error(`${name} is not a column of the table`);
    columns[name] = bulkType(column);
  }
  return columns;
}

/** The SQL names of `table`'s columns, in the schema's order (a COPY's column list). */
export function columnNames(table: Table): string[] {
  return Object.values(getTableColumns(table)).map((c) => c.name);
}

/** The SQL names of `table`'s primary key, composite or of one column. */
export function primaryKeyNames(table: PgTable): string[] {
  const composite = getTableConfig(table).primaryKeys[0];
  if (composite) return composite.columns.map((c) => c.name);
  return Object.values(getTableColumns(table))
    .filter((c) => c.primary)
    .map((c) => c.name);
}

/** The SQL names of `table`'s columns outside its primary key. */
export function nonKeyNames(table: PgTable): string[] {
  const key = new Set(primaryKeyNames(table));
  return columnNames(table).filter((name) => !key.has(name));
}
