import type { DatabaseConfig } from '../config';
import { openPostgres } from './connector';

/** Signalled by every transaction that moves the index (an advance or a rollback). */
export const INDEX_CHANNEL = 'launchdex_index';

/**
 * Calls `wake` whenever a transaction that NOTIFYs `channel` commits, on a connection of its own
 * (postgres.js reconnects and listens again by itself). Resolves to a function that stops it.
 * On PGlite another session's notifications cannot reach this process: nothing listens, and the
 * caller's poll serves alone.
 */
export async function listenForNotifications(
  database: DatabaseConfig,
  channel: string,
  applicationName: string,
  wake: () => void,
): Promise<() => Promise<void>> {
  if (database.kind !== 'postgres') return async () => {};
  const { client, connector } = openPostgres(database, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: applicationName },
  });
  await client.listen(channel, () => wake());
  return async () => {
    await connector.close();
    await client.end({ timeout: 5 });
  };
}
