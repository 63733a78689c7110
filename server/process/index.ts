import type { Logger } from 'pino';
import { createRequestContext } from '../api/context';
import type { RestDispatcher } from '../api/rest/dispatch';
import { restDispatcher } from '../api/rest/registry';
import type { Context } from '../api/trpc';
import type { Config } from '../config';
import { type DatabaseHandle, getDatabase } from '../db';
import { getReadDatabases, type ReadDatabases } from '../db/read-databases';
import type { PageServices } from '../handover';
import type { ConcurrencyLimiter } from '../http/concurrency';
import type { RateLimiter } from '../http/rate-limit';
import { getLogger } from '../logger';
import { getObjectStore, type ObjectStore } from '../objects/store';
import { startBackgroundWork } from '../startup';
import type { StreamHub } from '../stream/hub';
import { getStreamHub } from '../stream/process-hub';
import { createWebHandlers, type WebHandlers } from './handlers';
import { createLimits } from './limits';
import { createPageServices } from './pages';

/**
 * The web server's process: every long-lived service, built once at start and passed down to the
 * front, the transports and (through server/handover.ts) the pages. There is one of each per
 * process because the server's modules are loaded once (docs/architecture.md).
 */
export interface ServerProcess {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  /** The primary and the replicas of DATABASE_READ_URLS, and which one answers a read. */
  reads: ReadDatabases;
  limiter: RateLimiter;
  /** Upload and stream slots per client, when another process counts them (a cluster primary). */
  concurrency?: ConcurrencyLimiter;
  hub: StreamHub;
  objects: ObjectStore;
  /** The procedures' context: process-wide services only, so one object serves every call. */
  context: Context;
  /** `/api/v1/**` except the stream and the OpenAPI document. */
  rest: RestDispatcher;
  /** tRPC, objects, the stream, health/ready/metrics/OpenAPI, the devnet RPC. */
  web: WebHandlers;
  /** What Next's pages are handed. */
  pages: PageServices;
}

/**
 * Opens (and migrates) the database, starts the background work (draft purge, the embedded
 * indexer), and builds the services of the web server. A bad setting or an unreachable database
 * ends the process here, loudly, rather than failing every request.
 */
export async function startServerProcess(config: Config): Promise<ServerProcess> {
  await startBackgroundWork();
  const [database, limits, objects] = await Promise.all([
    getDatabase(config),
    createLimits(config),
    getObjectStore(config.objects),
  ]);
  // The replicas' pools and their first poll: the first reads already know which replicas qualify.
  const reads = await getReadDatabases(config);
  const hub = getStreamHub();
  const context = await createRequestContext();
  return {
    config,
    logger: getLogger(),
    database,
    reads,
    ...limits,
    hub,
    objects,
    context,
    rest: restDispatcher,
    web: createWebHandlers({ config, hub, objects, context }),
    pages: createPageServices(config, context),
  };
}
