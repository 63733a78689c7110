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
/** Below this many rows a JSON statement beats the round trips of COPY. */
const COPY_THRESHOLD = 2_000;

interface CopyCapableClient {
  unsafe(query: string): Promise<unknown> & { writable(): Promise<NodeJS.WritableStream> };
}

/**
 * The postgres.js client under a drizzle database or transaction, for COPY; undefined on PGlite.
 * drizzle keeps it on its session; there is no public accessor.
 */
function copyClientOf(db: Database): CopyCapableClient | undefined {
  const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
  return typeof client === 'function' && 'unsafe' in client ? (client as CopyCapableClient) : undefined;
}

/** One value in COPY text format. */
function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/[\\\t\n\r]/g, (ch) =>
    ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r',
  );
}

async function copyInto(
  client: CopyCapableClient,
  table: string,
  names: string[],
  rows: readonly Record<string, unknown>[],
) {
  const stream = await client
    .unsafe(`copy "${table}" (${names.map((n) => `"${n}"`).join(', ')}) from stdin`)
    .writable();
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    let index = 0;
    const writeMore = () => {
      while (index < rows.length) {
        let chunk = '';
        for (const end = Math.min(rows.length, index + 2_000); index < end; index++) {
          const row = rows[index] as Record<string, unknown>;
          chunk += `${names.map((name) => copyValue(row[name])).join('\t')}\n`;
        }
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
  const copyClient = rows.length >= COPY_THRESHOLD ? copyClientOf(db) : undefined;
  if (copyClient) {
    // COPY is about 1.7x faster than INSERT ... json_to_recordset here (docs/benchmarks.md).
    // A conflict clause needs INSERT, so those rows pass through a transaction-local staging table.
    if (suffix === '') return copyInto(copyClient, table, names, rows);
    const stage = `stage_${table}`;
    await copyClient.unsafe(
      `create temp table if not exists "${stage}" (like "${table}" including defaults) on commit delete rows`,
    );
    await copyInto(copyClient, stage, names, rows);
    const list = names.map((name) => `"${name}"`).join(', ');
    await copyClient.unsafe(`insert into "${table}" (${list}) select ${list} from "${stage}" ${suffix}`);
    await copyClient.unsafe(`truncate "${stage}"`);
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
