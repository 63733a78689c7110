import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { DatabaseConfig } from '../server/config';
import { type DatabaseHandle, openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import type { Backend } from './backends';
import { testEnv } from './env';

export { availableBackends, type Backend } from './backends';

export interface TestDatabase {
  backend: Backend;
  config: DatabaseConfig;
  /** Environment for a server process using this database. */
  env: Record<string, string>;
  /** Opens a migrated handle. For PGlite, close it before a server opens the same directory. */
  open(): Promise<DatabaseHandle>;
  drop(): Promise<void>;
}

/** A fresh, uniquely named database (or PGlite directory), dropped by `drop()`. */
export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  if (backend === 'postgres') {
    const name = `launchdex_test_${id}`;
    const admin = postgres(testEnv.postgresAdminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(testEnv.postgresAdminUrl);
    url.pathname = `/${name}`;
    const config: DatabaseConfig = { kind: 'postgres', url: url.toString() };
    const dataDir = mkdtempSync(path.join(tmpdir(), 'launchdex-pg-'));
    return {
      backend,
      config,
      env: { DATABASE_URL: config.url, DATA_DIR: dataDir },
      open: () => openMigrated(config),
      drop: async () => {
        const dropper = postgres(testEnv.postgresAdminUrl, { max: 1, onnotice: () => {} });
        await dropper.unsafe(`drop database if exists ${name} with (force)`);
        await dropper.end();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'launchdex-pglite-'));
  const config: DatabaseConfig = { kind: 'pglite', dir: path.join(dataDir, 'pglite') };
  return {
    backend,
    config,
    env: { DATA_DIR: dataDir },
    open: () => openMigrated(config),
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** A migrated handle on `config` (its own pool of 4). */
export async function openMigrated(config: DatabaseConfig): Promise<DatabaseHandle> {
  const handle = await openDatabase(config, { max: 4 });
  await migrateDatabase(handle);
  return handle;
}
