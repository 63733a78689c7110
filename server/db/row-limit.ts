import { type Placeholder, type SQL, sql } from 'drizzle-orm';

/**
 * A row limit written into the statement text rather than bound as `$n`. A prepared keyset page
 * with an unknown limit has a generic plan of "scan and sort everything", so PostgreSQL plans it
 * anew on every execution (0.2–0.8 ms each, docs/benchmarks.md); with the limit in the text, each
 * (shape, limit) pair is one prepared statement planned once per connection. Limits are validated
 * integers (1–101 from the API), so the number of statements stays bounded.
 */
export function rowLimit(rows: number): SQL {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new RangeError(`row limit ${rows} is not a count`);
  return sql.raw(String(rows));
}

/**
 * The same for drizzle's `.limit()`, which renders an SQL chunk it is given in place of its
 * parameter (pg-core dialect: `limit ${limit}` for an object); the type only admits placeholders.
 * row-limit.test.ts pins the rendered text.
 */
export function builderRowLimit(rows: number): Placeholder {
  return rowLimit(rows) as unknown as Placeholder;
}
