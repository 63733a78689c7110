import { ConfigError, getConfig } from './config';
import { getDatabase } from './db';
import { readIndexedThroughBlock } from './db/checkpoint';
import { openDatabase } from './db/client';
import { createIndexer, type Indexer } from './indexer/indexer';
import { createRpcClient } from './indexer/rpc/client';
import { getLogger } from './logger';
import { schedulePurge } from './metadata/purge-drafts';
import { getObjectStore } from './objects/store';
import { readChainHead } from './observability/chain-head';
import { registerMetricProbes } from './observability/process-metrics';
import { startWebhookWorker } from './webhooks/start';

const slot: { indexer?: Indexer; purge?: true; webhooks?: true } = {};

/** The indexer running inside this web process, if any (for health and metrics). */
export function embeddedIndexer(): Indexer | undefined {
  return slot.indexer;
}

/**
 * Validates the configuration and opens + migrates the database before the first request, so a
 * bad setting or an unreachable database fails start-up loudly instead of failing every request.
 * On embedded PGlite it also starts the indexer here: PGlite admits one process per data
 * directory, so the indexer cannot be a process of its own.
 */
export async function startBackgroundWork(): Promise<void> {
  let config: ReturnType<typeof getConfig>;
  try {
    config = getConfig();
    const handle = await getDatabase(config);
    const chain = config.chain;
    registerMetricProbes({
      indexedThroughBlock: () => readIndexedThroughBlock(handle.db).catch(() => null),
      chainHead: () => readChainHead(chain),
      indexer: () => slot.indexer?.status,
    });
    // Uploads are written by the web processes, so they purge what expires: every process runs
    // the timer, one at a time purges (an advisory lock), the database decides what goes.
    if (config.drafts.purgeIntervalMs > 0 && !slot.purge) {
      slot.purge = true;
      const stop = new AbortController();
      process.once('SIGTERM', () => stop.abort());
      schedulePurge({
        db: handle.db,
        objects: await getObjectStore(config.objects),
        ttlMs: config.drafts.ttlMs,
        intervalMs: config.drafts.purgeIntervalMs,
        signal: stop.signal,
        log: getLogger().child({ component: 'draft-purge' }),
        onDeleteFailed: (key, error) =>
          getLogger().warn(
            { key, err: error instanceof Error ? error.message : String(error) },
            'object delete failed',
          ),
      });
    }
    // Webhooks are delivered from the web processes: every one runs a worker, targets are leased
    // one worker at a time (docs/decisions.md, "Webhooks: a per-target outbox").
    if (config.webhooks.worker && !slot.webhooks) {
      slot.webhooks = true;
      const stop = new AbortController();
      process.once('SIGTERM', () => stop.abort());
      const webhooksDb =
        handle.config.kind === 'postgres'
          ? (await openDatabase(handle.config, { max: 2, applicationName: 'launchdex-webhooks' })).db
          : handle.db;
      startWebhookWorker(webhooksDb, config, stop.signal);
    }
    if (config.embeddedIndexer && chain && !slot.indexer) {
      const logger = getLogger().child({ component: 'indexer' });
      // On PostgreSQL the indexer writes through a pool of its own: the web pool's
      // statement_timeout is a budget for reads, not for a range's writes. PGlite is one session.
      const indexerDb =
        handle.config.kind === 'postgres'
          ? (await openDatabase(handle.config, { max: 4, applicationName: 'launchdex-indexer' })).db
          : handle.db;
      const indexer = createIndexer({
        db: indexerDb,
        rpc: createRpcClient({
          url: chain.rpcUrl,
          maxResponseBytes: chain.maxResponseBytes,
          onRetry: (info) => logger.warn(info, 'RPC retry'),
        }),
        chain,
        logger,
      });
      slot.indexer = indexer;
      const stop = new AbortController();
      process.once('SIGTERM', () => stop.abort());
      process.once('SIGINT', () => stop.abort());
      logger.info({ rpc: chain.rpcUrl, factory: chain.factoryAddress }, 'embedded indexer starting');
      indexer.run(stop.signal).catch((error: unknown) => {
        logger.fatal(
          { err: error instanceof Error ? error.message : String(error) },
          'embedded indexer halted',
        );
      });
    }
  } catch (error) {
    console.error(
      error instanceof ConfigError
        ? error.message
        : `Launchdex failed to start: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
}
