import type { Logger } from 'pino';
import type { Config, DatabaseConfig } from '../config';
import type { Database } from '../db/client';
import { listenForNotifications } from '../db/notify';
import { createDnsResolver } from '../metadata/dns-resolver';
import { OUTBOX_CHANNEL } from './outbox';
import { createWebhookWorker } from './worker';

/**
 * Calls `wake` whenever a transaction that queued webhook events commits (LISTEN on PostgreSQL;
 * postgres.js reconnects and listens again by itself). Resolves to a function that stops it.
 * On PGlite there is nothing to listen to from another session: the poll alone serves.
 */
export function listenForOutbox(database: DatabaseConfig, wake: () => void): Promise<() => Promise<void>> {
  return listenForNotifications(database, OUTBOX_CHANNEL, 'launchdex-webhooks-listen', wake);
}

/**
 * Runs this process's webhook delivery worker until `signal` aborts, as the settings say.
 * `logger` is the process's; the worker logs as its `webhooks` component.
 */
export function startWebhookWorker(db: Database, config: Config, signal: AbortSignal, log: Logger): void {
  const logger = log.child({ component: 'webhooks' });
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
