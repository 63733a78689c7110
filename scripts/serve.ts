/**
 * `npm run serve [-- --workers N|auto]`: the production web server (`npm run dev` is the same
 * with Next.js in development mode, `--dev`). Every request passes the HTTP front
 * (server/http/front.ts): one gate of targets, methods, bodies, rate and concurrency limits and
 * deadlines for every transport. Behind it, everything that is not a page (REST, tRPC, objects,
 * the stream, health, metrics) is answered by this process's own modules, built once into the
 * process object (server/process); Next.js renders the pages in a worker thread of this process
 * (server/pages; in development, in the process), and they reach the same services through the
 * one object handed over (server/handover.ts).
 *
 * With more than one worker (WEB_WORKERS, default one per core on PostgreSQL; always one on
 * PGlite) this process is the cluster primary (server/http/cluster/primary.ts) and each worker
 * runs the web server below, its per-client limits counted by the primary for all workers.
 */
import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../server/config';
import { parseWorkersFlag, planWebWorkers } from '../server/http/cluster/worker-count';
import type { FrontServices } from '../server/http/front';
import { createLogger } from '../server/logger';
import type { ServerProcess } from '../server/process';
import { loadWebConfigOrExit } from './cli';

const root = path.resolve(import.meta.dirname, '..');

/** The web server of one process: Next.js prepared, the front in front of it. */
async function serveWeb(config: Config, note: string | undefined, dev: boolean): Promise<void> {
  const [{ startServerProcess }, { createFront }] = await Promise.all([
    import('../server/process'),
    import('../server/http/front'),
  ]);
  const house = await startServerProcess(config).catch((error: unknown) =>
    failedToStart('Launchdex failed to start', error),
  );
  const pages = await startPages(house, config, dev);

  const worker = cluster.isWorker;
  const front = createFront({
    config,
    logger: house.logger,
    latency: house.metrics.httpDuration,
    limiter: house.limiter,
    ...(house.concurrency ? { concurrency: house.concurrency } : {}),
    next: pages.handle,
    rest: house.rest,
    web: house.web,
    ...(pages.upgrade ? { upgrade: pages.upgrade } : {}),
  });
  const pid = String(process.pid);
  // Which worker answered, so an operator (and the cluster test) can tell them apart.
  const handle = worker
    ? (incoming: IncomingMessage, outgoing: ServerResponse) => {
        outgoing.setHeader('launchdex-worker', pid);
        front.handle(incoming, outgoing);
      }
    : front.handle;
  const server = createServer(front.serverOptions, handle);
  front.configure(server);
  const stop = () => {
    house.stop();
    server.close(() => void pages.close().finally(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  if (worker) {
    const { serveHandedConnections } = await import('../server/http/cluster/worker-connections');
    if (!house.workerLimits) throw new Error('a cluster worker without its limits channel');
    await serveHandedConnections(server, house.workerLimits);
    return;
  }
  server.listen(config.port, config.host, () => {
    console.log(`▶ listening on http://${config.host}:${config.port}${note ? ` (${note})` : ''}`);
  });
}

/** Next.js as the front sees it: its request handler, and in development its hot-reload upgrades. */
interface Pages {
  handle: FrontServices['next'];
  upgrade?: FrontServices['upgrade'];
  close(): Promise<void>;
}

/**
 * Production: Next.js renders in its own worker thread, so its AsyncLocalStorage hooks never tax
 * the API's promises (docs/decisions.md, "Pages render in their own thread"). Development: in this
 * process, where its compiler and hot reload expect to be; its hooks' cost does not matter there.
 */
async function startPages(house: ServerProcess, config: Config, dev: boolean): Promise<Pages> {
  const { pages: services, logger } = house;
  const { host: hostname, port } = config;
  if (!dev) {
    const { startPageRenderer } = await import('../server/pages/renderer');
    return startPageRenderer({ services, root, hostname, port, logger }).catch((error: unknown) =>
      failedToStart('Launchdex failed to start its pages', error),
    );
  }
  const [{ default: next }, { handOverToPages }] = await Promise.all([
    import('next'),
    import('../server/handover'),
  ]);
  // Before Next.js loads a page: the pages read this process's services, never their own.
  handOverToPages(services);
  const app = next({ dev: true, dir: root, hostname, port });
  await app.prepare();
  return { handle: app.getRequestHandler(), upgrade: app.getUpgradeHandler(), close: async () => {} };
}

/** What could not start, said in one line (no stack: the message names the cause), then exit 1. */
function failedToStart(what: string, error: unknown): never {
  console.error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const config = loadWebConfigOrExit();
if (cluster.isWorker) {
  await serveWeb(config, undefined, false);
} else {
  let requested: number | 'auto';
  let dev = false;
  try {
    const { values } = parseArgs({ options: { workers: { type: 'string' }, dev: { type: 'boolean' } } });
    dev = values.dev === true;
    // Development recompiles pages on request: one process, whatever the flags say.
    requested = dev ? 1 : (parseWorkersFlag(values.workers) ?? config.webWorkers);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  const plan = planWebWorkers({ requested, database: config.database.kind, cores: availableParallelism() });
  const logger = createLogger(config);
  if (plan.warning) logger.warn({ workers: plan.workers }, plan.warning);
  if (plan.workers > 1) {
    const { runClusterPrimary } = await import('../server/http/cluster/primary');
    runClusterPrimary({ config, logger, workers: plan.workers, reason: plan.reason });
  } else {
    await serveWeb(config, dev ? 'development' : `1 worker, ${plan.reason}`, dev);
  }
}
