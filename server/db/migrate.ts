import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { type DatabaseHandle, selectRows } from './client';
import { openPostgres } from './connector';

/** Where drizzle-kit writes migrations; the app runs from the repository root. */
export const defaultMigrationsFolder = path.resolve(process.cwd(), 'drizzle');

// Any fixed 64-bit number works; it only has to differ from the indexer's leader lock.
const MIGRATION_LOCK_ID = 0x6c61756e6368n;

/**
 * Applies pending migrations. On PostgreSQL several processes may start at once (web instances,
 * the indexer), so the run is serialized with an advisory lock on a connection of its own.
 */
export async function migrateDatabase(
  handle: DatabaseHandle,
  migrationsFolder = defaultMigrationsFolder,
): Promise<void> {
  if (handle.config.kind === 'pglite') {
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    await migrate(handle.db as unknown as Parameters<typeof migrate>[0], { migrationsFolder });
    return;
  }
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  // Through the connection layer: its deadlines, and a multi-host URL's primary.
  const { client, connector } = openPostgres(handle.config, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_ID.toString()}::bigint)`;
    await migrate(drizzle({ client }), { migrationsFolder });
  } finally {
    await connector.close();
    await client.end({ timeout: 5 });
  }
}

interface Journal {
  entries: { idx: number; tag: string; when: number }[];
}

/** Number of migrations shipped with this build. */
export function shippedMigrationCount(migrationsFolder = defaultMigrationsFolder): number {
  const journal = JSON.parse(
    readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8'),
  ) as Journal;
  return journal.entries.length;
}

/** Number of migrations recorded as applied in the database (0 when none ran yet). */
export async function appliedMigrationCount(handle: DatabaseHandle): Promise<number> {
  const rows = await selectRows<{ count: string | number }>(
    handle.db,
    sql`select count(*) as count from drizzle.__drizzle_migrations`,
  );
  return Number(rows[0]?.count ?? 0);
}
