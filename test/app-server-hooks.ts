import { afterAll, beforeAll } from 'vitest';
import { type AppServer, type AppServerOptions, startAppServer } from './app-server';
import { type Backend, createTestDatabase, type TestDatabase } from './database';
import type { IndexedStack } from './stack';

/**
 * A fresh test database and the production server over it for the tests of a describe: started
 * before them with `env` added to the database's (a function of the database when the server's
 * environment needs it), stopped and dropped after them. `started` hands both to the caller's own
 * bindings inside the same hook, so a failed start still cleans up.
 */
export function appServerForTests(
  backend: Backend | undefined,
  env: Record<string, string> | ((database: TestDatabase) => Record<string, string>),
  started: (open: { database: TestDatabase; server: AppServer }) => Promise<void> | void,
  options: { server?: AppServerOptions; hookTimeoutMs?: number } = {},
): void {
  let database: TestDatabase | undefined;
  let server: AppServer | undefined;
  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    database = await createTestDatabase(backend);
    const added = typeof env === 'function' ? env(database) : env;
    server = await startAppServer({ ...database.env, ...added }, options.server);
    await started({ database, server });
  }, options.hookTimeoutMs);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });
}

/**
 * An indexed stack (test/stack.ts) for the tests of a describe: `start` runs before them and the
 * stack stops after them. `started` hands it to the caller's own bindings and prepares it inside
 * the same hook, so a failed preparation still stops it.
 */
export function indexedStackForTests(
  start: () => Promise<IndexedStack>,
  started: (stack: IndexedStack) => Promise<void> | void,
  timeoutMs = 240_000,
): void {
  let stack: IndexedStack | undefined;
  beforeAll(async () => {
    stack = await start();
    await started(stack);
  }, timeoutMs);
  afterAll(async () => {
    await stack?.stop();
  });
}
