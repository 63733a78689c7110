import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';

const dialect = new PgDialect();

/** A constant of the code base as an SQL literal (never a request's value). */
function literal(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  throw new TypeError(`frozenSql inlines numbers and strings only, not ${typeof value}`);
}

/**
 * A constant SQL fragment rendered to text once, at module load. Drizzle walks every chunk of a
 * fragment on every query it builds; the subqueries every token row carries (24 h price change,
 * indexed_through_block) are most of a list statement's chunks. Its parameters must be constants
 * of the code (a checkpoint id), which are written in as literals.
 */
export function frozenSql(fragment: SQL): SQL {
  const { sql: text, params } = dialect.sqlToQuery(fragment);
  return sql.raw(text.replace(/\$(\d+)/g, (_, index: string) => literal(params[Number(index) - 1])));
}
