import type { Config } from '../config';
import { type DatabaseHandle, openDriver, wrapDriver } from './client';
import { migrateDatabase } from './migrate';

export type { Database, DatabaseHandle } from './client';

/**
 * Opens the web process's database (its one pool; for PGlite, its one embedded instance) with
 * prepared statements and the read statement timeout, and migrates it. Called once at process
 * start (server/process): a failed open or migration ends start-up rather than every request.
 * @example const database = await openProcessDatabase(config);
 */
export async function openProcessDatabase(
  config: Pick<Config, 'database' | 'readStatementTimeoutMs'>,
): Promise<DatabaseHandle> {
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
  return wrapDriver(driver, config.database);
}
