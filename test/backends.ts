import postgres from 'postgres';
import { testEnv } from './env';

export type Backend = 'postgres' | 'pglite';

let postgresReachable: Promise<boolean> | undefined;

async function isPostgresReachable(): Promise<boolean> {
  const sql = postgres(testEnv.postgresAdminUrl, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/**
 * The backends this run exercises: PostgreSQL when reachable (required under CI) and PGlite
 * always, unless TEST_BACKENDS narrows the list. Kept free of app imports so the vitest config can
 * ask it which suites exist on this machine.
 */
export async function availableBackends(): Promise<Backend[]> {
  const wanted = (testEnv.backends?.split(',').map((b) => b.trim()) ?? ['postgres', 'pglite']) as Backend[];
  const result: Backend[] = [];
  if (wanted.includes('postgres')) {
    postgresReachable ??= isPostgresReachable();
    if (await postgresReachable) result.push('postgres');
    else if (testEnv.requirePostgres)
      throw new Error(`PostgreSQL is required under CI but ${testEnv.postgresAdminUrl} is unreachable`);
  }
  if (wanted.includes('pglite')) result.push('pglite');
  return result;
}
