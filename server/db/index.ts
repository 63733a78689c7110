import { type Config, getConfig } from '../config';
import { type DatabaseDriver, type DatabaseHandle, openDriver, wrapDriver } from './client';
import { migrateDatabase } from './migrate';

export type { Database, DatabaseHandle } from './client';

interface ProcessDatabase {
  driver?: Promise<DatabaseDriver>;
}

// Next.js may evaluate a module once per route bundle, and the web server loads it once more
// under tsx: the driver lives on globalThis so the process holds exactly one pool (and, for
// PGlite, exactly one embedded instance).
const slot = globalThis as typeof globalThis & { __launchdexDatabase?: ProcessDatabase };
slot.__launchdexDatabase ??= {};
const processDatabase = slot.__launchdexDatabase;

/**
 * This module copy's drizzle over the shared driver. Drizzle tells its columns from SQL by
 * `instanceof`; a schema of one copy mapped by the other's drizzle takes the slow path on every
 * field of every row (a fifth of a list request's CPU, docs/benchmarks.md).
 */
let local: { driver: Promise<DatabaseDriver>; handle: Promise<DatabaseHandle> } | undefined;

/**
 * The process-wide database, opened and migrated on first use.
 * A failed open is not cached, so a later request can retry once the database is back.
 */
export function getDatabase(config: Config = getConfig()): Promise<DatabaseHandle> {
  if (!processDatabase.driver) {
    const opening = (async () => {
      const driver = await openDriver(config.database, {
        prepareStatements: true,
        statementTimeoutMs: config.readStatementTimeoutMs,
      });
      try {
        await migrateDatabase(await wrapDriver(driver, config.database));
      } catch (error) {
        await driver.close().catch(() => {});
        throw error;
      }
      return driver;
    })();
    processDatabase.driver = opening;
    opening.catch(() => {
      if (processDatabase.driver === opening) processDatabase.driver = undefined;
    });
  }
  const driver = processDatabase.driver;
  if (local?.driver !== driver)
    local = { driver, handle: driver.then((opened) => wrapDriver(opened, config.database)) };
  return local.handle;
}
