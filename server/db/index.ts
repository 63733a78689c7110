import { type Config, getConfig } from '../config';
import { type DatabaseHandle, openDatabase } from './client';
import { migrateDatabase } from './migrate';

export type { Database, DatabaseHandle } from './client';

interface ProcessDatabase {
  handle?: Promise<DatabaseHandle>;
}

// Next.js may evaluate a module once per route bundle; the handle lives on globalThis so the
// process holds exactly one pool (and, for PGlite, exactly one embedded instance).
const slot = globalThis as typeof globalThis & { __launchdexDatabase?: ProcessDatabase };
slot.__launchdexDatabase ??= {};
const processDatabase = slot.__launchdexDatabase;

/**
 * The process-wide database, opened and migrated on first use.
 * A failed open is not cached, so a later request can retry once the database is back.
 */
export function getDatabase(config: Config = getConfig()): Promise<DatabaseHandle> {
  if (!processDatabase.handle) {
    const opening = (async () => {
      const handle = await openDatabase(config.database, { prepareStatements: true });
      try {
        await migrateDatabase(handle);
      } catch (error) {
        await handle.close().catch(() => {});
        throw error;
      }
      return handle;
    })();
    processDatabase.handle = opening;
    opening.catch(() => {
      if (processDatabase.handle === opening) processDatabase.handle = undefined;
    });
  }
  return processDatabase.handle;
}
