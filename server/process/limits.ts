import cluster from 'node:cluster';
import type { Config } from '../config';
import { getWorkerLimits } from '../http/cluster/worker-limits';
import type { ConcurrencyLimiter } from '../http/concurrency';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from '../http/rate-limit';

/**
 * The process's limits. The rate limiter: Redis when REDIS_URL is set (shared by every
 * instance); in a worker of `npm run serve --workers N`, the buckets its primary holds for all of
 * its workers (so a client whose connections land on different workers still has one bucket);
 * else this process's memory. Upload and stream slots: a worker's are its primary's too; without
 * a primary the front counts them itself (undefined here).
 */
export async function createLimits(
  config: Config,
): Promise<{ limiter: RateLimiter; concurrency?: ConcurrencyLimiter }> {
  const worker = cluster.isWorker ? getWorkerLimits() : undefined;
  const limiter = config.redisUrl
    ? await createRedisRateLimiter(config.redisUrl, { commandTimeoutMs: config.redisCommandTimeoutMs })
    : (worker?.rateLimiter ?? createMemoryRateLimiter());
  return { limiter, ...(worker ? { concurrency: worker.concurrency } : {}) };
}
