import type { Logger } from 'pino';
import type { Config } from '../config';
import { type DatabaseHandle, openDatabase, openDriver, wrapDriver } from './client';
import { isConnectionError } from './connector';
import { appliedMigrationCount, migrateDatabase, shippedMigrationCount } from './migrate';

export type { Database, DatabaseHandle } from './client';

/**
 * Opens the web process's database (its one pool; for PGlite, its one embedded instance) with
 * prepared statements and the read statement timeout, and migrates it. Called once at process
 * start (server/process): a failed open or migration ends start-up rather than every request.
 *
 * With replicas, a primary that cannot be reached at start does not keep the instance down: it
 * starts read-only (the replicas serve reads; what needs the primary answers 503 until it is
 * back) when a replica is migrated as far as this build, and the migrations run once the primary
 * answers.
 * @example const database = await openProcessDatabase(config, { logger, signal });
 */
export async function openProcessDatabase(
  config: Pick<Config, 'database' | 'readStatementTimeoutMs' | 'readAcquireTimeoutMs' | 'replicas'>,
  background?: { logger: Logger; signal: AbortSignal },
): Promise<DatabaseHandle> {
  const driver = await openDriver(config.database, {
    prepareStatements: true,
    statementTimeoutMs: config.readStatementTimeoutMs,
    acquireTimeoutMs: config.readAcquireTimeoutMs,
  });
  const handle = await wrapDriver(driver, config.database);
  try {
    await migrateDatabase(handle);
  } catch (error) {
    if (background && isConnectionError(error) && (await replicaMigrated(config))) {
      background.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'primary database unreachable at start: serving reads from the replicas; migrations wait for the primary',
      );
      void migrateWhenReachable(handle, background);
      return handle;
    }
    await driver.close().catch(() => {});
    throw error;
  }
  return handle;
}

/** Whether a replica has every migration this build ships (its reads then match the code). */
async function replicaMigrated(config: Pick<Config, 'database' | 'replicas'>): Promise<boolean> {
  if (config.database.kind !== 'postgres') return false;
  for (const url of config.replicas.urls) {
    const replica = await openDatabase({ ...config.database, url }, { max: 1 }).catch(() => undefined);
    if (!replica) continue;
    try {
      if ((await appliedMigrationCount(replica)) === shippedMigrationCount()) return true;
    } catch {
      // Unreachable too: try the next one.
    } finally {
      await replica.close().catch(() => {});
    }
  }
  return false;
}

async function migrateWhenReachable(
  handle: DatabaseHandle,
  { logger, signal }: { logger: Logger; signal: AbortSignal },
) {
  while (!signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    try {
      await migrateDatabase(handle);
      logger.info({}, 'primary database reachable: migrations applied, writes open');
      return;
    } catch (error) {
      if (!isConnectionError(error)) {
        logger.error({ err: error instanceof Error ? error.message : String(error) }, 'migrations failed');
        return;
      }
    }
  }
}
