import { sql } from 'drizzle-orm';
import { textArray } from './bulk';
import { type Database, selectRows } from './client';

/**
 * The indexes an initial backfill drops and builds once at the head: the three sort indexes of
 * `traders` (token, value desc, wallet desc) and the two read indexes of `balance_history`.
 * Maintained row by row they cost a backfill more than the rest of their projection
 * (docs/indexer.md, docs/benchmarks.md); one sorted build at the end costs a fraction of that.
 * The primary key stays (upserts need it), and so does `balance_history_to_idx` (rollbacks read it).
 */
export const backfillDeferredIndexes = [
  'traders_pnl_idx',
  'traders_volume_idx',
  'traders_balance_idx',
  'balance_history_holders_idx',
  'balance_history_wallet_idx',
] as const;

/**
 * What a rebuild (server/indexer/rebuild/) drops besides: every index of the large projection
 * tables that only the read API uses, each built once, sorted, before the rebuilt index is swapped
 * in. The indexer's own reads keep theirs (primary keys, a token's trades by time for the 24 h
 * window, tokens by pool and by last trade).
 */
export const rebuildDeferredIndexes = [
  ...backfillDeferredIndexes,
  'chain_events_token_kind_idx',
  'trades_token_order_idx',
  'trades_trader_idx',
  'balances_wallet_idx',
  'balances_holders_idx',
  'balances_accounts_idx',
] as const;

/** Names of the indexes dropped and not built yet. */
export async function deferredIndexNames(db: Database): Promise<string[]> {
  const rows = await selectRows<{ name: string }>(db, sql`select name from deferred_indexes order by name`);
  return rows.map((row) => row.name);
}

/**
 * Drops `names` where they exist, recording each one's definition in the same transaction.
 * Idempotent: an index already deferred (or absent) is left as it is.
 */
export async function deferIndexes(db: Database, names: readonly string[]): Promise<string[]> {
  return await db.transaction(async (tx) => {
    const rows = await selectRows<{ name: string; table_name: string; definition: string }>(
      tx,
      sql`select indexname as name, tablename as table_name, indexdef as definition from pg_indexes
           where schemaname = current_schema() and indexname = any(${textArray([...names])})
           order by indexname`,
    );
    for (const row of rows) {
      await tx.execute(sql`insert into deferred_indexes (name, table_name, definition)
        values (${row.name}, ${row.table_name}, ${row.definition}) on conflict (name) do nothing`);
      await tx.execute(sql.raw(`drop index "${row.name.replaceAll('"', '""')}"`));
    }
    return rows.map((row) => row.name);
  });
}

export interface BuiltIndex {
  name: string;
  ms: number;
}

/**
 * Builds every deferred index from its recorded definition and forgets the record, one index per
 * transaction (a crash keeps the rest recorded). The builds run at once, each on a connection of
 * the pool (CREATE INDEX takes a lock that other builds share; PGlite runs them one after the
 * other). CREATE INDEX blocks writes to the table while it sorts, never reads; the indexer is
 * the table's only writer and calls this between ranges.
 */
export async function buildDeferredIndexes(
  db: Database,
  onBuilt?: (index: BuiltIndex) => void,
): Promise<BuiltIndex[]> {
  const rows = await selectRows<{ name: string; definition: string }>(
    db,
    sql`select name, definition from deferred_indexes order by name`,
  );
  return await Promise.all(
    rows.map(async (row) => {
      const started = performance.now();
      await db.transaction(async (tx) => {
        // A sort in memory instead of on disk for the sizes a backfill leaves (PostgreSQL's default is 64 MB; three builds at once).
        await tx.execute(sql`select set_config('maintenance_work_mem', '128MB', true)`);
        // A partitioned table's index prints as "ON ONLY": built so, it would cover no partition.
        await tx.execute(
          sql.raw(
            row.definition
              .replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS ')
              .replace(' ON ONLY ', ' ON '),
          ),
        );
        await tx.execute(sql`delete from deferred_indexes where name = ${row.name}`);
      });
      const index = { name: row.name, ms: performance.now() - started };
      onBuilt?.(index);
      return index;
    }),
  );
}
