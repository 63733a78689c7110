import { afterAll, beforeAll } from 'vitest';
import type { DatabaseHandle } from '../server/db/client';
import { type Backend, createTestDatabase, type TestDatabase } from './database';

/**
 * One fresh test database for the tests of a describe, open before them, closed and dropped after
 * them. `opened` hands it to the caller's own bindings and prepares it (migrated already: indexing,
 * fixture rows) inside the same hook, so a failed preparation still drops the database.
 */
export function testDatabaseForTests(
  backend: Backend,
  opened: (open: { database: TestDatabase; handle: DatabaseHandle }) => Promise<void> | void,
  timeoutMs?: number,
): void {
  let database: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    handle = await database.open();
    await opened({ database, handle });
  }, timeoutMs);
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });
}
