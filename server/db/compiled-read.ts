import { fillPlaceholders, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from './client';

/** What drizzle keeps of the driver it wraps (`db.$client`): only the two calls used here. */
type DriverOf = {
  $client:
    | { unsafe(text: string, parameters: unknown[]): Promise<unknown[]> }
    | { query(text: string, parameters: unknown[]): Promise<{ rows: unknown[] }> };
};

/**
 * A hot read's statement, compiled to its text once per process: each request only fills in its
 * values and hands text and values to the driver. Through `db.execute(sql…)` every request built
 * the statement again (template objects, parameter walk, tracing span, result wrapper): more CPU
 * than PostgreSQL spends answering a primary-key read (docs/benchmarks.md). On postgres.js the
 * statement is prepared per connection like every web read (`prepareStatements`).
 *
 * Rows come back as the driver parses them, as from `db.execute`: select only text and numeric
 * columns (cast amounts to text), never dates, whose parsing drizzle configures per call on PGlite.
 * @example
 * const creatorRow = compiledRead<{ address: string }, 'address'>((param) =>
 *   sql`select address from creators where address = ${param('address')}`);
 * const [row] = await creatorRow(ctx.db, { address });
 */
export function compiledRead<Row extends Record<string, unknown>, Name extends string>(
  build: (param: (name: Name) => Placeholder<Name>) => SQL,
): (db: Database, values: Record<Name, unknown>) => Promise<Row[]> {
  const variants = compiledReads<Row, Name, ''>((param) => build(param));
  return (db, values) => variants(db, values, '');
}

/**
 * {@link compiledRead} for a statement whose text varies with a small, bounded set of variants
 * (a page after a cursor or the first page; a row limit written into the text, which lets
 * PostgreSQL plan for it): one compiled text per variant, built on its first use.
 */
export function compiledReads<
  Row extends Record<string, unknown>,
  Name extends string,
  Variant extends string,
>(
  build: (param: (name: Name) => Placeholder<Name>, variant: Variant) => SQL,
): (db: Database, values: Record<Name, unknown>, variant: Variant) => Promise<Row[]> {
  const compiled = new Map<Variant, { text: string; params: unknown[] }>();
  const param = (name: Name) => sql.placeholder(name);
  // Not an async function: the driver's promise is the read's, with no frame around it (each
  // promise costs the async hooks Next.js leaves on, docs/decisions.md).
  return (db, values, variant) => {
    let statement = compiled.get(variant);
    if (!statement) {
      try {
        const query = new PgDialect().sqlToQuery(build(param, variant));
        statement = { text: query.sql, params: query.params };
      } catch (error) {
        return Promise.reject(error);
      }
      compiled.set(variant, statement);
    }
    const parameters = fillPlaceholders(statement.params, values);
    const client = (db as unknown as DriverOf).$client;
    if ('unsafe' in client) return client.unsafe(statement.text, parameters) as Promise<Row[]>;
    return client.query(statement.text, parameters).then((result) => result.rows as Row[]);
  };
}

/**
 * {@link compiledReads} whose rows are arrays of their columns as the wire carries them: on
 * postgres.js each value a Buffer over the bytes received (no string is made of a large text that
 * is only written on), on PGlite the value it parsed. For reads that pass bulk text through (CSV
 * exports): strings of hundreds of KB a second outlived the young generation and grew the heap
 * by ~100 MB between full collections; the Buffers leave the JavaScript heap flat.
 */
export function compiledRawReads<Name extends string, Variant extends string>(
  build: (param: (name: Name) => Placeholder<Name>, variant: Variant) => SQL,
): (db: Database, values: Record<Name, unknown>, variant: Variant) => Promise<RawValue[][]> {
  const compiled = new Map<Variant, { text: string; params: unknown[] }>();
  const param = (name: Name) => sql.placeholder(name);
  return async (db, values, variant) => {
    let statement = compiled.get(variant);
    if (!statement) {
      const query = new PgDialect().sqlToQuery(build(param, variant));
      statement = { text: query.sql, params: query.params };
      compiled.set(variant, statement);
    }
    const parameters = fillPlaceholders(statement.params, values);
    const client = (db as unknown as RawDriverOf).$client;
    if ('unsafe' in client) return client.unsafe(statement.text, parameters).raw();
    return client
      .query(statement.text, parameters, { rowMode: 'array' })
      .then((result) => result.rows as RawValue[][]);
  };
}

/** A column of a raw row: its bytes (postgres.js), or what PGlite parsed it to; null for SQL null. */
export type RawValue = Uint8Array | string | number | boolean | null;

type RawDriverOf = {
  $client:
    | { unsafe(text: string, parameters: unknown[]): { raw(): Promise<RawValue[][]> } }
    | {
        query(
          text: string,
          parameters: unknown[],
          options: { rowMode: 'array' },
        ): Promise<{ rows: unknown[] }>;
      };
};
