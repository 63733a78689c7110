/**
 * Test-only settings. Tests may read the environment here (and only here): they decide which
 * backends exist on this machine, not how the app behaves.
 */
export const testEnv = {
  /** Admin connection used to create and drop per-run databases. */
  postgresAdminUrl: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  /** Comma list restricting backends, e.g. `pglite` on a machine without PostgreSQL. */
  backends: process.env.TEST_BACKENDS,
  /** CI must not silently skip a backend it is supposed to exercise. */
  requirePostgres: process.env.CI === 'true' && process.env.TEST_BACKENDS === undefined,
  chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
};
