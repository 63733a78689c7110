import { type Config, getConfig } from '../config';
import { type DatabaseDriver, type DatabaseHandle, openDriver, wrapDriver } from './client';
import { migrateDatabase } from './migrate';

export type { Database, DatabaseHandle } from './client';

/** The process's one pool (for PGlite, its one embedded instance) and the drizzle over it. */
const processDatabase: { driver?: Promise<DatabaseDriver>; handle?: Promise<DatabaseHandle> } = {};

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
    processDatabase.handle = opening.then((opened) => wrapDriver(opened, config.database));
  }
  return processDatabase.handle as Promise<DatabaseHandle>;
}
