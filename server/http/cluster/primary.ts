import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../../config';
import { createConnectionRouter } from './connection-router';
import { createLimitTable } from './limit-table';
import { createMetricsCollector } from './metrics-collector';
import { isLimitRequests, isWorkerReady } from './protocol';
import { defaultRestartPolicy, type RestartPolicy, restartDelay } from './restart-delay';
import { workerEnvironment } from './worker-count';

export interface ClusterPrimaryOptions {
  config: Config;
  /** The primary's logger (its lines carry `component: cluster`). */
  logger: Logger;
  workers: number;
  /** Why this many workers, for the log. */
  reason: string;
  restartPolicy?: RestartPolicy;
  /** How long workers get to finish after SIGTERM before they are killed. */
  stopTimeoutMs?: number;
}

/** One of the N places a worker runs in; a replacement takes its predecessor's place. */
interface Place {
  index: number;
  /** Forked with this on top of the primary's environment (the embedded indexer in place 0 only). */
  env: Record<string, string>;
  worker: Worker | undefined;
  forkedAt: number;
  delayMs: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The primary of `npm run serve --workers N`: forks N web workers (this same script), accepts
 * client connections and hands them out in turn, counts every per-client limit that must hold
 * across workers (rate buckets, upload and stream slots, connections per address), replaces a
 * worker that dies (1 s, doubling on quick deaths up to 30 s) and stops them all on SIGTERM or
 * SIGINT. It loads neither Next.js nor the database. See docs/decisions.md.
 */
export function runClusterPrimary(options: ClusterPrimaryOptions): void {
  const { config } = options;
  const log = options.logger.child({ component: 'cluster' });
  const policy = options.restartPolicy ?? defaultRestartPolicy;
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  const table = createLimitTable();
  const router = createConnectionRouter({
    table,
    connectionsPerAddress: config.trustedProxyHops === 0 ? config.http.connectionsPerClient : undefined,
  });
  const places: Place[] = Array.from(
    { length: options.workers },
    (_, index): Place => ({
      index,
      env: workerEnvironment(index, config.embeddedIndexer, options.workers),
      worker: undefined,
      forkedAt: 0,
      delayMs: 0,
      timer: undefined,
    }),
  );
  const placeOf = new Map<Worker, Place>();
  const ready = new Set<Worker>();
  let listening = false;
  let stopping = false;
  let exitCode = 0;

  const fork = (place: Place) => {
    place.timer = undefined;
    place.forkedAt = Date.now();
    const worker = cluster.fork(place.env);
    place.worker = worker;
    placeOf.set(worker, place);
  };

  const stop = (code: number) => {
    if (stopping) {
      // A second signal: no more waiting.
      for (const worker of placeOf.keys()) worker.process.kill('SIGKILL');
      return;
    }
    stopping = true;
    exitCode = code;
    router.server.close();
    for (const place of places) clearTimeout(place.timer);
    if (placeOf.size === 0) process.exit(exitCode);
    for (const worker of placeOf.keys()) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of placeOf.keys()) {
        log.warn({ worker: worker.id, pid: worker.process.pid }, 'worker did not stop in time; killing it');
        worker.process.kill('SIGKILL');
      }
    }, stopTimeoutMs);
  };

  const metrics = createMetricsCollector(() => ready);
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (metrics.handle(worker, message)) return;
    if (isLimitRequests(message)) {
      const answers = table.answer(worker.id, message);
      if (answers.takes.length + answers.acquires.length > 0 && worker.isConnected()) worker.send(answers);
      return;
    }
    if (!isWorkerReady(message) || stopping || !placeOf.has(worker)) return;
    ready.add(worker);
    router.setServing(worker, true);
    log.info({ worker: worker.id, pid: worker.process.pid }, 'worker ready');
    // The port opens once every first worker is ready, so the first answers come from all of them.
    if (!listening && places.every((place) => place.worker !== undefined && ready.has(place.worker))) {
      listening = true;
      router.server.listen(config.port, config.host, () => {
        console.log(
          `▶ listening on http://${config.host}:${config.port} (${options.workers} workers, ${options.reason})`,
        );
      });
    }
  });

  cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => {
    const place = placeOf.get(worker);
    placeOf.delete(worker);
    ready.delete(worker);
    router.setServing(worker, false);
    const freed = table.releaseAll(worker.id);
    if (!place) return;
    place.worker = undefined;
    if (stopping) {
      if (placeOf.size === 0) process.exit(exitCode);
      return;
    }
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!listening) {
      log.error(
        { worker: worker.id, pid: worker.process.pid, code, signal },
        'worker exited during start-up',
      );
      console.error(`a web worker exited during start-up (${how}); stopping`);
      stop(1);
      return;
    }
    place.delayMs = restartDelay(place.delayMs, Date.now() - place.forkedAt, policy);
    log.warn(
      {
        worker: worker.id,
        pid: worker.process.pid,
        code,
        signal,
        slotsFreed: freed,
        restartInMs: place.delayMs,
      },
      `web worker exited (${how}); replacing it`,
    );
    place.timer = setTimeout(() => fork(place), place.delayMs);
  });

  router.server.on('error', (error: NodeJS.ErrnoException) => {
    console.error(`cannot listen on ${config.host}:${config.port}: ${error.message}`);
    stop(1);
  });
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));

  log.info({ workers: options.workers, reason: options.reason }, 'starting web workers');
  for (const place of places) fork(place);
}
