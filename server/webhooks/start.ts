import postgres from 'postgres';
import type { Config, DatabaseConfig } from '../config';
import type { Database } from '../db/client';
import { getLogger } from '../logger';
import { createDnsResolver } from '../metadata/dns-resolver';
import { OUTBOX_CHANNEL } from './outbox';
import { createWebhookWorker } from './worker';

/**
 * Calls `wake` whenever a transaction that queued webhook events commits (LISTEN on PostgreSQL;
 * postgres.js reconnects and listens again by itself). Resolves to a function that stops it.
 * On PGlite there is nothing to listen to from another session: the poll alone serves.
 */
export async function listenForOutbox(
  database: DatabaseConfig,
  wake: () => void,
): Promise<() => Promise<void>> {
  if (database.kind !== 'postgres') return async () => {};
  const client = postgres(database.url, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: 'launchdex-webhooks-listen' },
  });
  await client.listen(OUTBOX_CHANNEL, () => wake());
  return () => client.end({ timeout: 5 });
}

/** Runs this process's webhook delivery worker until `signal` aborts, as the settings say. */
export function startWebhookWorker(db: Database, config: Config, signal: AbortSignal): void {
  const logger = getLogger().child({ component: 'webhooks' });
  const worker = createWebhookWorker({
    db,
    resolver: createDnsResolver({ servers: config.imageDns.servers, timeoutMs: config.imageDns.timeoutMs }),
    policy: { allowLoopback: config.webhooks.allowLoopback },
    retry: config.webhooks.retry,
    timeoutMs: config.webhooks.timeoutMs,
    concurrency: config.webhooks.concurrency,
    pollMs: config.webhooks.pollMs,
    finalityDepth: config.chain?.finalityDepth ?? 64,
    logger,
  });
  const failed = (error: unknown) =>
    logger.error({ err: error instanceof Error ? error.message : String(error) }, 'webhook worker stopped');
  listenForOutbox(config.database, () => worker.wake()).then(
    (stop) => signal.addEventListener('abort', () => void stop().catch(() => {}), { once: true }),
    // Without the listener, deliveries still start within WEBHOOK_POLL_MS.
    (error: unknown) =>
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'webhook listen failed'),
  );
  worker.run(signal).catch(failed);
}
