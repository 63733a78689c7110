import { parseConfig } from '../server/config';
import { type ServerProcess, startServerProcess } from '../server/process';
import type { TestDatabase } from './database';

/**
 * A web server process over `database`, as scripts/serve.ts builds one, with nothing running in
 * the background (no indexer, webhook worker or draft purge) and no logs.
 */
export function startTestProcess(database: TestDatabase): Promise<ServerProcess> {
  const config = parseConfig({
    NODE_ENV: 'test',
    ...database.env,
    INDEXER_MODE: 'off',
    WEBHOOK_WORKER: 'off',
    DRAFT_PURGE_INTERVAL_MS: '0',
    LOG_LEVEL: 'silent',
  });
  return startServerProcess(config);
}

/** Stops what {@link startTestProcess} started and closes what it opened. */
export async function closeTestProcess(house: ServerProcess): Promise<void> {
  house.stop();
  await house.reads.close();
  await house.database.close();
}
