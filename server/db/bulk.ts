import { type SQL, sql } from 'drizzle-orm';
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
/** Below this many rows a JSON statement beats the round trips of COPY. */
const COPY_THRESHOLD = 2_000;

/** postgres.js's pending query: a promise with `writable()`, and the `reject` it settles itself with. */
export type PostgresCopyQuery = Promise<unknown> & {
  writable(): Promise<NodeJS.WritableStream>;
  readable(): Promise<AsyncIterable<Buffer>>;
  reject?: (error: unknown) => void;
};
interface PostgresCopyClient {
  unsafe(query: string): PostgresCopyQuery;
}
interface PgliteCopyClient {
  query(query: string, params: unknown[], options?: { blob: Blob }): Promise<{ blob?: Blob }>;
}

/**
 * The client under a drizzle database or transaction, for COPY: postgres.js streams into
 * `from stdin`, PGlite reads a blob from `/dev/blob`. drizzle keeps the client on its session;
 * there is no public accessor.
 */
export function copyClientOf(
  db: Database,
): { kind: 'postgres'; client: PostgresCopyClient } | { kind: 'pglite'; client: PgliteCopyClient } {
  const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
  if (typeof client === 'function' && 'unsafe' in client)
    return { kind: 'postgres', client: client as PostgresCopyClient };
  if (client && typeof (client as { query?: unknown }).query === 'function')
    return { kind: 'pglite', client: client as PgliteCopyClient };
  throw new Error('COPY needs a postgres.js or PGlite session');
}

/** One value in COPY text format. */
function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/[\\\t\n\r]/g, (ch) =>
    ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r',
  );
}

/** Joined text of about this many bytes goes to the server per write. */
const COPY_CHUNK_CHARS = 1 << 20;

/**
 * Appends rows given as COPY text lines (tab-separated, escaped, without the newline; an
 * element may hold several lines joined by newlines): the cheapest way into PostgreSQL, and the
 * caller can build the lines while the previous statement runs.
 * @example await copyLines(tx, 'trades', ['block_number', 'log_index'], ['12\t3'])
 */
export async function copyLines(
  db: Database,
  table: string,
  names: readonly string[],
  lines: readonly string[],
): Promise<void> {
  if (lines.length === 0) return;
  const target = `"${table}" (${names.map((n) => `"${n}"`).join(', ')})`;
  const copy = copyClientOf(db);
  if (copy.kind === 'pglite') {
    await copy.client.query(`copy ${target} from '/dev/blob'`, [], {
      blob: new Blob([`${lines.join('\n')}\n`]),
    });
    return;
  }
  const query = copy.client.unsafe(`copy ${target} from stdin`);
  const refused = serverRefusal(query);
  const stream = await query.writable();
  await new Promise<void>((resolve, reject) => {
    refused.catch(reject);
    stream.on('error', reject);
    let index = 0;
    const writeMore = () => {
      while (index < lines.length) {
        let chunk = '';
        while (index < lines.length && chunk.length < COPY_CHUNK_CHARS) chunk += `${lines[index++]}\n`;
        if (!stream.write(chunk)) {
          stream.once('drain', writeMore);
          return;
        }
      }
      stream.end(() => resolve());
    };
    writeMore();
  });
}

/**
 * Settles with the error the server answers a COPY with. postgres.js (3.4.9) hands an error
 * that arrives while the stream is open to the stream, but one that arrives after it ended
 * (a duplicate key found on the last rows, a bad value in a small COPY) only to the query's
 * own `reject`, and the query has already resolved with the stream: the error was lost, the
 * end callback never came, and the transaction hung "idle in transaction (aborted)" for good
 * (porsager/postgres#1173). copy.int.test.ts fails if this stops catching it.
 */
export function serverRefusal(query: PostgresCopyQuery): Promise<never> {
  const settle = query.reject;
  if (typeof settle !== 'function')
    throw new Error("postgres.js no longer exposes a query's reject: see serverRefusal in server/db/bulk.ts");
  const refused = new Promise<never>((_, reject) => {
    query.reject = (error: unknown) => {
      reject(error);
      settle(error);
    };
  });
  refused.catch(() => {});
  return refused;
}

const copyInto = (db: Database, table: string, names: string[], rows: readonly Record<string, unknown>[]) =>
  copyLines(
    db,
    table,
    names,
    rows.map((row) => names.map((name) => copyValue(row[name])).join('\t')),
  );

/**
 * A transaction-local table shaped like `table` (empty at every commit), for rows that must be
 * merged with INSERT … ON CONFLICT or joined after a COPY. Returns its name.
 */
export async function stagingTable(db: Database, table: string, definition?: string): Promise<string> {
  const stage = `stage_${table}`;
  await db.execute(
    sql.raw(
      `create temp table if not exists "${stage}" ${definition ?? `(like "${table}" including defaults)`} on commit delete rows`,
    ),
  );
  return stage;
}

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
  if (rows.length >= COPY_THRESHOLD) {
    // COPY is about 1.7x faster than INSERT ... json_to_recordset here (docs/benchmarks.md).
    // A conflict clause needs INSERT, so those rows pass through a transaction-local staging table.
    if (suffix === '') return copyInto(db, table, names, rows);
    const stage = await stagingTable(db, table);
    await copyInto(db, stage, names, rows);
    const list = names.map((name) => `"${name}"`).join(', ');
    await db.execute(sql.raw(`insert into "${table}" (${list}) select ${list} from "${stage}" ${suffix}`));
    await db.execute(sql.raw(`truncate "${stage}"`));
    return;
  }
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

/** Below this many rows one statement with the rows as a parameter beats a staging table. */
const STAGE_THRESHOLD = 500;

/**
 * Rows given as COPY lines, as a relation named `s` for the next statement: a staging table
 * filled by COPY when there are many, else the lines themselves as a text-array parameter.
 */
export async function stagedRelation(
  t: Database,
  name: string,
  columns: Record<string, ColumnType>,
  lines: string[],
): Promise<SQL> {
  const names = Object.keys(columns);
  if (lines.length < STAGE_THRESHOLD) {
    const fields = names
      .map((column, i) => `(string_to_array(line, E'\\t'))[${i + 1}]::${columns[column]} as "${column}"`)
      .join(', ');
    return sql`(select ${sql.raw(fields)} from unnest(${textArray(lines)}) as line) s`;
  }
  const definition = names.map((column) => `"${column}" ${columns[column]} not null`).join(', ');
  const stage = await stagingTable(t, name, `(${definition})`);
  await copyLines(t, stage, names, lines);
  return sql.raw(`"${stage}" s`);
}
