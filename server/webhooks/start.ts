import type { Config } from '../config';
import type { Database } from '../db/client';
import { getLogger } from '../logger';
import { createDnsResolver } from '../metadata/dns-resolver';
import { createWebhookWorker } from './worker';

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
  worker.run(signal).catch((error: unknown) => {
    logger.error({ err: error instanceof Error ? error.message : String(error) }, 'webhook worker stopped');
  });
}
