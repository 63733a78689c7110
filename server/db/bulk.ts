import { sql } from 'drizzle-orm';
import type { Database } from './client';

export type ColumnType =
  | 'text'
  | 'bigint'
  | 'integer'
  | 'smallint'
  | 'numeric'
  | 'boolean'
  | 'jsonb'
  | 'float8';

const CHUNK = 5_000;

/** JSON with bigint as decimal text; PostgreSQL casts it back per declared column type. */
function toJsonRows(rows: readonly Record<string, unknown>[]): string {
  return JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
}

/**
 * Inserts many rows in a few statements: the rows travel as one JSON parameter and
 * `json_to_recordset` turns them into a relation (about as fast as INSERT ... unnest, and the
 * same on postgres.js and PGlite).
 * @example await bulkInsert(tx, 'trades', { block_number: 'bigint', ... }, rows, 'on conflict do nothing')
 */
export async function bulkInsert(
  db: Database,
  table: string,
  columns: Record<string, ColumnType>,
  rows: readonly Record<string, unknown>[],
  suffix = '',
): Promise<void> {
  const names = Object.keys(columns);
  const definition = names
    .map((name) => `"${name}" ${columns[name] === 'jsonb' ? 'jsonb' : columns[name]}`)
    .join(', ');
  const list = names.map((name) => `"${name}"`).join(', ');
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    await db.execute(
      sql
        .raw(`insert into "${table}" (${list}) select ${list} from json_to_recordset(`)
        .append(sql`${toJsonRows(chunk)}::json) as x(${sql.raw(definition)}) ${sql.raw(suffix)}`),
    );
  }
}

/** The rows as a relation for joins and updates: `from ${jsonRecordset(rows, cols)} as x`. */
export function jsonRecordset(rows: readonly Record<string, unknown>[], columns: Record<string, ColumnType>) {
  const definition = Object.entries(columns)
    .map(([name, type]) => `"${name}" ${type}`)
    .join(', ');
  return sql`json_to_recordset(${toJsonRows(rows)}::json) as x(${sql.raw(definition)})`;
}

/**
 * A text[] parameter. drizzle expands a JS array into `($1, $2, ...)`, which `= any(...)` cannot
 * take; a single array literal parameter works on both drivers and keeps the statement prepared.
 */
export function textArray(values: readonly string[]) {
  const literal = `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
  return sql`${literal}::text[]`;
}
