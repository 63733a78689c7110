import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { WorkerLimits } from '../http/cluster/limit-client';
import { openWorkerLimits } from '../http/cluster/worker-limits';
import type { ConcurrencyLimiter } from '../http/concurrency';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from '../http/rate-limit';

/** The process's limits: see {@link createLimits}. */
export interface ProcessLimits {
  limiter: RateLimiter;
  /** Upload and stream slots per client, when the cluster primary counts them. */
  concurrency?: ConcurrencyLimiter;
  /** A cluster worker's channel to its primary's counts (the connection slots it gives back too). */
  worker?: WorkerLimits;
}

/**
 * The process's limits. The rate limiter: Redis when REDIS_URL is set (shared by every
 * instance); in a worker of `npm run serve --workers N`, the buckets its primary holds for all of
 * its workers (so a client whose connections land on different workers still has one bucket);
 * else this process's memory. Upload and stream slots: a worker's are its primary's too; without
 * a primary the front counts them itself (undefined here).
 */
export async function createLimits(config: Config, logger: Logger): Promise<ProcessLimits> {
  const worker = cluster.isWorker ? openWorkerLimits(logger) : undefined;
  const limiter = config.redisUrl
    ? await createRedisRateLimiter(config.redisUrl, {
        commandTimeoutMs: config.redisCommandTimeoutMs,
        logger,
      })
    : (worker?.rateLimiter ?? createMemoryRateLimiter());
  return { limiter, ...(worker ? { concurrency: worker.concurrency, worker } : {}) };
}
