import { readIndexedThroughBlock } from './api/routers/tokens/rows';
import { getConfig } from './config';
import { getDatabase } from './db';
import { appliedMigrationCount, shippedMigrationCount } from './db/migrate';
import { getLogger } from './logger';

export interface Health {
  status: 'ok' | 'unavailable';
  database: {
    driver: 'postgres' | 'pglite';
    reachable: boolean;
    migrations: { applied: number; shipped: number; current: boolean } | null;
    error?: string;
  };
  indexer: { indexed_through_block: number | null };
}

/** Liveness of the parts this process depends on: database reachable and fully migrated. */
export async function checkHealth(): Promise<Health> {
  const config = getConfig();
  const shipped = shippedMigrationCount();
  try {
    const handle = await getDatabase(config);
    const indexedThroughBlock = await readIndexedThroughBlock(handle.db);
    const applied = await appliedMigrationCount(handle);
    const current = applied === shipped;
    return {
      status: current ? 'ok' : 'unavailable',
      database: { driver: handle.driver, reachable: true, migrations: { applied, shipped, current } },
      indexer: {
        indexed_through_block: indexedThroughBlock,
      },
    };
  } catch (error) {
    getLogger().warn({ err: error }, 'health check failed');
    return {
      status: 'unavailable',
      database: {
        driver: config.database.kind,
        reachable: false,
        migrations: null,
        error: error instanceof Error ? error.message.split('\n')[0] : 'unknown error',
      },
      indexer: { indexed_through_block: null },
    };
  }
}
