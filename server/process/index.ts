import type { Logger } from 'pino';
import { createRequestContext } from '../api/context';
import { resolveCursorSecret } from '../api/cursor-secret';
import { createDatabaseTurn, type DatabaseTurn, processSlots, processTime } from '../api/database-share';
import { createRestDispatcher, type ProcessReadCache, type RestDispatcher } from '../api/rest/dispatch';
import { createReadCache } from '../api/rest/read-cache';
import { restRoutes } from '../api/rest/registry';
import type { Context } from '../api/trpc';
import type { Config } from '../config';
import { type DatabaseHandle, openProcessDatabase } from '../db';
import { readIndexedThroughBlock } from '../db/checkpoint';
import { openReadDatabases, type ReadDatabases } from '../db/read-databases';
import { createReadVersion } from '../db/read-version';
import type { PageServices } from '../handover';
import type { WorkerLimits } from '../http/cluster/limit-client';
import type { ConcurrencyLimiter } from '../http/concurrency';
import { chargeExportRows } from '../http/gate/buckets';
import type { RateLimiter } from '../http/rate-limit';
import type { Indexer } from '../indexer/indexer';
import { createLogger } from '../logger';
import { type ObjectStore, openObjectStore } from '../objects/store';
import { type ChainHead, createChainHead } from '../observability/chain-head';
import { createMetricsScrape } from '../observability/cluster-metrics';
import { countDatabaseTime } from '../observability/database-time';
import { createMetrics, type LaunchdexMetrics } from '../observability/metrics';
import { startBackgroundWork } from '../startup';
import type { StreamHub } from '../stream/hub';
import { createProcessHub } from '../stream/process-hub';
import { readWebhookGauges } from '../webhooks/gauges';
import { createWebHandlers, type WebHandlers } from './handlers';
import { createLimits } from './limits';
import { createPageServices } from './pages';

/**
 * The web server's process: every long-lived service, built once at start and passed down to the
 * front, the transports and (through server/handover.ts) the pages, as Ponder's `Common` is.
 * There is one of each per process because the server's modules are loaded once and no module
 * keeps a service of its own (docs/architecture.md, "The process object").
 */
export interface ServerProcess {
  config: Config;
  logger: Logger;
  /** The primary, opened and migrated at start. */
  database: DatabaseHandle;
  /** The primary and the replicas of DATABASE_READ_URLS, and which one answers a read. */
  reads: ReadDatabases;
  limiter: RateLimiter;
  /** Upload and stream slots per client, when another process counts them (a cluster primary). */
  concurrency?: ConcurrencyLimiter;
  /** A cluster worker's channel to its primary's counts; absent outside a cluster. */
  workerLimits?: WorkerLimits;
  hub: StreamHub;
  objects: ObjectStore;
  /** The key cursors are signed with, read (or on a first start written) once. */
  cursorSecret: string;
  /** Each client's share of database reads, taken by REST reads and tRPC queries alike. */
  databaseTurn: DatabaseTurn;
  /** Repeated REST reads from memory (READ_CACHE_MB); absent when it is 0. */
  readCache?: ProcessReadCache;
  /** The procedures' context: process-wide services only, so one object serves every call. */
  context: Context;
  /** `/api/v1/**` except the stream and the OpenAPI document. */
  rest: RestDispatcher;
  /** tRPC, objects, the stream, health/ready/metrics/OpenAPI, the devnet RPC. */
  web: WebHandlers;
  /** What Next's pages are handed. */
  pages: PageServices;
  /** The indexer running inside this process (embedded PGlite), if any. */
  indexer?: Indexer;
  /** The chain head over one RPC client, read by the metrics and readiness. */
  chainHead: ChainHead;
  /** The registry /api/metrics exposes and the latency histogram every answer records in. */
  metrics: LaunchdexMetrics;
  /**
   * Ends the background work and the stream hub's listener. The pools stay open: a request cut
   * off mid-query still finishes on them (its owner closes them, or the process exits).
   */
  stop(): void;
}

/**
 * Builds the web server's process from its configuration (parsed once, by the caller): the
 * logger, the database (opened and migrated), the read replicas, the limits, the object store, the
 * cursor key, the stream hub, the read cache and everything built over them; then starts the
 * background work (draft purge, webhooks, the embedded indexer). Rejects when the database cannot
 * be opened or migrated, so start-up fails loudly rather than every request.
 * @example const house = await startServerProcess(config); process.once('SIGTERM', house.stop);
 */
export async function startServerProcess(config: Config): Promise<ServerProcess> {
  const stopping = new AbortController();
  const { signal } = stopping;
  const logger = createLogger(config);
  const database = await openProcessDatabase(config, { logger, signal });
  // The replicas' pools and their first poll: the first reads already know which replicas qualify.
  const [limits, objects, reads] = await Promise.all([
    createLimits(config, logger),
    openObjectStore(config.objects),
    openReadDatabases(config, database.db),
  ]);
  const cursorSecret = await resolveCursorSecret(config, database.db, reads.replicaDatabases());
  const background = await startBackgroundWork({ config, logger, database, objects, signal });
  const hub = createProcessHub({ config, db: database.db, logger, signal });
  const { turn: databaseTurn, totals: databaseTime } = countDatabaseTime(
    createDatabaseTurn(
      processSlots(config.databaseSlotsPerClient, config.instanceWebWorkers),
      processTime(config.databaseMsPerSecondPerClient, config.instanceWebWorkers),
    ),
  );
  const readCache = processReadCache(config, database);
  const chainHead = createChainHead(config.chain);
  const metrics = createMetrics({
    indexedThroughBlock: () => readIndexedThroughBlock(database.db).catch(() => null),
    chainHead,
    indexer: () => background.indexer?.status,
    // Every connection the limit counts, replaying or live.
    streamClients: () => hub.slots,
    streamMaxClients: () => config.stream.maxClients,
    databaseTime: () => databaseTime,
    webhooks: () => readWebhookGauges(database.db, config.webhooks.retry).catch(() => undefined),
    readCache: () =>
      readCache && {
        ...readCache.cache.stats,
        bytes: readCache.cache.bytes,
        entries: readCache.cache.entries,
      },
    databaseReads: () => reads.reads(),
    replicaLag: () => Object.fromEntries(reads.health().map(({ name, lagBlocks }) => [name, lagBlocks])),
  });
  const context = createRequestContext({
    config,
    db: database.db,
    reads,
    cursorSecret,
    objects,
    databaseTurn,
  });
  return {
    config,
    logger,
    database,
    reads,
    limiter: limits.limiter,
    ...(limits.concurrency ? { concurrency: limits.concurrency } : {}),
    ...(limits.worker ? { workerLimits: limits.worker } : {}),
    hub,
    objects,
    cursorSecret,
    databaseTurn,
    ...(readCache ? { readCache } : {}),
    context,
    rest: createRestDispatcher(restRoutes, {
      context,
      logger,
      latency: metrics.httpDuration,
      readCache,
      databases: reads,
      databaseTurn,
      exportCharge: chargeExportRows(limits.limiter, config),
    }),
    web: createWebHandlers({
      config,
      logger,
      database,
      reads,
      hub,
      objects,
      context,
      chainHead,
      latency: metrics.httpDuration,
      scrapeMetrics: createMetricsScrape(metrics.registry),
    }),
    pages: createPageServices({ config, context, db: database.db, objects }),
    ...background,
    chainHead,
    metrics,
    stop: () => stopping.abort(),
  };
}

/** The process's read cache over its database. */
function processReadCache(config: Config, database: DatabaseHandle): ProcessReadCache | undefined {
  if (config.readCacheBytes === 0) return undefined;
  return { version: createReadVersion(database.db), cache: createReadCache(config.readCacheBytes) };
}
