import type { Logger } from 'pino';
import type { Config } from './config';
import type { DatabaseHandle } from './db';
import { openDatabase } from './db/client';
import { createIndexer, type Indexer } from './indexer/indexer';
import { createRpcClient } from './indexer/rpc/client';
import { rebuildAtStart } from './indexer/upgrade';
import { schedulePurge } from './metadata/purge-drafts';
import type { ObjectStore } from './objects/store';
import { startWebhookWorker } from './webhooks/start';

/** What the background work of a web process runs over: the process's own resources. */
export interface BackgroundResources {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  objects: ObjectStore;
  /** Aborted when the process stops: every timer and loop started here ends with it. */
  signal: AbortSignal;
}

/**
 * Starts the web process's background work: the draft purge, the webhook worker and, on embedded
 * PGlite, the indexer (PGlite admits one process per data directory, so the indexer cannot be a
 * process of its own). Called once per process, by server/process, after the database is open.
 * @returns the embedded indexer, if one runs (health and metrics read its status)
 */
export async function startBackgroundWork(resources: BackgroundResources): Promise<{ indexer?: Indexer }> {
  const { config, logger, database: handle, objects, signal } = resources;
  const chain = config.chain;
  // An index built by an older release is rebuilt (server/indexer/upgrade.ts). On PGlite first,
  // before anything else uses the process's one session and before the server answers: readers
  // wait for the rebuild instead of reading half of it. On PostgreSQL beside the live index.
  if (config.embeddedIndexer && chain) {
    await rebuildAtStart(handle, {
      chain,
      rpc: createRpcClient({
        url: chain.rpcUrl,
        maxResponseBytes: chain.maxResponseBytes,
        timeoutMs: chain.rpcTimeoutMs,
      }),
      logger: logger.child({ component: 'rebuild' }),
    });
  }
  // Uploads are written by the web processes, so they purge what expires: every process runs
  // the timer, one at a time purges (an advisory lock), the database decides what goes.
  if (config.drafts.purgeIntervalMs > 0) {
    schedulePurge({
      db: handle.db,
      objects,
      ttlMs: config.drafts.ttlMs,
      intervalMs: config.drafts.purgeIntervalMs,
      signal,
      log: logger.child({ component: 'draft-purge' }),
      onDeleteFailed: (key, error) =>
        logger.warn(
          { key, err: error instanceof Error ? error.message : String(error) },
          'object delete failed',
        ),
    });
  }
  // Webhooks are delivered from the web processes: every one runs a worker, targets are leased
  // one worker at a time (docs/decisions.md, "Webhooks: a per-target outbox").
  if (config.webhooks.worker) {
    const webhooksDb =
      handle.config.kind === 'postgres'
        ? (await openDatabase(handle.config, { max: 2, applicationName: 'launchdex-webhooks' })).db
        : handle.db;
    startWebhookWorker(webhooksDb, config, signal, logger);
  }
  if (config.embeddedIndexer && chain) {
    const indexerLog = logger.child({ component: 'indexer' });
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
        timeoutMs: chain.rpcTimeoutMs,
        onRetry: (info) => indexerLog.warn(info, 'RPC retry'),
      }),
      chain,
      logger: indexerLog,
    });
    indexerLog.info({ rpc: chain.rpcUrl, factory: chain.factoryAddress }, 'embedded indexer starting');
    indexer.run(signal).catch((error: unknown) => {
      indexerLog.fatal(
        { err: error instanceof Error ? error.message : String(error) },
        'embedded indexer halted',
      );
    });
    return { indexer };
  }
  return {};
}
