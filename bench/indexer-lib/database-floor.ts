import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '../../server/db/client';
import { rebuildDeferredIndexes } from '../../server/db/deferred-indexes';
import { projectionTables } from '../../server/db/projection-tables';
import { createRebuildSchema, dropSchema, quote } from '../../server/indexer/rebuild/schema';

/**
 * The database floor of a replay, the twin of the RPC floor: PostgreSQL taking every row of the
 * index's projections bare. One `COPY … FROM` a server-side file per projection table, on one
 * connection, into empty copies made as a rebuild makes them (keys kept, the read API's indexes
 * deferred), of rows written out to those files beforehand: no fold, no staging, no merge. No
 * replay can write its rows in less of the database's CPU than this, whatever the indexer does.
 */
export interface DatabaseFloor {
  seconds: number;
  rows: number;
  /** COPY text read, in the files' bytes. */
  bytes: number;
  /** The tables that took longest, slowest first. */
  tables: { table: string; rows: number; seconds: number }[];
}

const FLOOR_SCHEMA = 'launchdex_bench_floor';

/**
 * The tables whose rows a replay makes: not the event store (its chunks are copied inside the
 * database as they are, never parsed) nor the undo journal (only the catch-up's last blocks write one).
 */
const replayedTables = (table: string) =>
  table !== 'raw_log_chunks' && table !== 'projection_journal' && table !== 'projection_writes';

export async function measureDatabaseFloor(url: string): Promise<DatabaseFloor> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  const handle = await openDatabase({ kind: 'postgres', url }, { max: 1 });
  // Server-side files: the server reads its rows itself, so no client's pace is in the measure. The
  // benchmark's database is on this machine; COPY to a file needs a superuser (the benchmark's).
  const dir = mkdtempSync(path.join(tmpdir(), 'launchdex-floor-'));
  chmodSync(dir, 0o777);
  try {
    const [{ live } = { live: 'public' }] = await client<{ live: string }[]>`select current_schema() as live`;
    const copies: { table: string; file: string; rows: number }[] = [];
    for (const table of projectionTables) {
      if (!replayedTables(table)) continue;
      const file = path.join(dir, `${table}.tsv`);
      const result = await client.unsafe(`copy (select * from ${quote(live)}.${quote(table)}) to '${file}'`);
      if (result.count > 0) copies.push({ table, file, rows: result.count });
    }
    await dropSchema(handle.db, FLOOR_SCHEMA);
    await createRebuildSchema(handle.db, live, FLOOR_SCHEMA, 'bench:indexer database floor');
    for (const index of rebuildDeferredIndexes)
      await client.unsafe(`drop index if exists ${quote(FLOOR_SCHEMA)}.${quote(index)}`);
    // A rebuild makes block-range partitions as it goes; one default partition takes every row here.
    const partitioned = await client<{ table: string }[]>`
      select c.relname as table from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = ${FLOOR_SCHEMA} and c.relkind = 'p'`;
    for (const { table } of partitioned)
      await client.unsafe(
        `create table ${quote(FLOOR_SCHEMA)}.${quote(`${table}_all`)} partition of ${quote(FLOOR_SCHEMA)}.${quote(table)} default`,
      );

    const tables: DatabaseFloor['tables'] = [];
    for (const { table, file, rows } of copies) {
      const started = performance.now();
      await client.unsafe(`copy ${quote(FLOOR_SCHEMA)}.${quote(table)} from '${file}'`);
      tables.push({ table, rows, seconds: (performance.now() - started) / 1000 });
    }
    tables.sort((a, b) => b.seconds - a.seconds);
    return {
      seconds: tables.reduce((sum, t) => sum + t.seconds, 0),
      rows: tables.reduce((sum, t) => sum + t.rows, 0),
      bytes: copies.reduce((sum, c) => sum + statSync(c.file).size, 0),
      tables,
    };
  } finally {
    await dropSchema(handle.db, FLOOR_SCHEMA).catch(() => {});
    await handle.close();
    await client.end({ timeout: 2 });
    rmSync(dir, { recursive: true, force: true });
  }
}
