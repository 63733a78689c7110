/**
 * `npm run serve [-- --workers N|auto]`: the production web server (`npm run dev` is the same
 * with Next.js in development mode, `--dev`). Every request passes the HTTP front
 * (server/http/front.ts): one gate of targets, methods, bodies, rate and concurrency limits and
 * deadlines for every transport. Behind it, everything that is not a page (REST, tRPC, objects,
 * the stream, health, metrics) is answered by this process's own modules, built once into the
 * process object (server/process); Next.js, run as a custom server, renders the pages, which
 * reach the same services through the one object handed over here (server/handover.ts).
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
import { createLogger } from '../server/logger';
import { loadWebConfigOrExit } from './cli';

const root = path.resolve(import.meta.dirname, '..');

/** The web server of one process: Next.js prepared, the front in front of it. */
async function serveWeb(config: Config, note: string | undefined, dev: boolean): Promise<void> {
  const [{ default: next }, { startServerProcess }, { handOverToPages }, { createFront }] = await Promise.all(
    [
      import('next'),
      import('../server/process'),
      import('../server/handover'),
      import('../server/http/front'),
    ],
  );
  // Aborted when the process is told to stop: the background work and the stream's listener end.
  const stopping = new AbortController();
  let house: Awaited<ReturnType<typeof startServerProcess>>;
  try {
    house = await startServerProcess(config, stopping.signal);
  } catch (error) {
    console.error(`Launchdex failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  // Before Next.js loads a page: the pages read this process's services, never their own.
  handOverToPages(house.pages);
  const app = next({ dev, dir: root, hostname: config.host, port: config.port });
  await app.prepare();

  const worker = cluster.isWorker;
  const front = createFront({
    config,
    logger: house.logger,
    limiter: house.limiter,
    ...(house.concurrency ? { concurrency: house.concurrency } : {}),
    next: app.getRequestHandler(),
    rest: house.rest,
    web: house.web,
    ...(dev ? { upgrade: app.getUpgradeHandler() } : {}),
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
    stopping.abort();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  if (worker) {
    (await import('../server/observability/cluster-metrics')).answerClusterMetrics();
    const { serveHandedConnections } = await import('../server/http/cluster/worker-connections');
    if (!house.workerLimits) throw new Error('a cluster worker without its limits channel');
    await serveHandedConnections(server, house.workerLimits);
    return;
  }
  server.listen(config.port, config.host, () => {
    console.log(`▶ listening on http://${config.host}:${config.port}${note ? ` (${note})` : ''}`);
  });
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
