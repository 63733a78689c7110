import type { Config } from '../../config';
import { AppError } from '../../errors';

export type RateLimitBucket = 'uploads' | 'finalize';

export interface RateLimiter {
  /** Counts one request for `key`; rejects with 429 rate_limited and Retry-After past the limit. */
  hit(key: string, limit: number): Promise<void>;
}

const WINDOW_MS = 60_000;

const limited = (retryAfterMs: number) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError('rate_limited', `too many requests; retry in ${seconds} s`, undefined, {
    'retry-after': String(seconds),
  });
};

/** Fixed one-minute windows in this process's memory: right for one instance. */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let sweepAt = 0;
  return {
    async hit(key, limit) {
      const time = now();
      if (time > sweepAt) {
        for (const [k, w] of windows) if (w.resetAt <= time) windows.delete(k);
        sweepAt = time + WINDOW_MS;
      }
      let window = windows.get(key);
      if (!window || window.resetAt <= time) {
        window = { count: 0, resetAt: time + WINDOW_MS };
        windows.set(key, window);
      }
      window.count++;
      if (window.count > limit) throw limited(window.resetAt - time);
    },
  };
}

/** The same windows in Redis (INCR + PEXPIRE NX), shared by every web instance. */
export async function createRedisRateLimiter(url: string, prefix = 'launchdex:rl:'): Promise<RateLimiter> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: false });
  return {
    async hit(key, limit) {
      const redisKey = `${prefix}${key}`;
      const result = await redis
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, WINDOW_MS, 'NX')
        .pttl(redisKey)
        .exec();
      const count = Number(result?.[0]?.[1] ?? 0);
      const ttl = Number(result?.[2]?.[1] ?? WINDOW_MS);
      if (count > limit) throw limited(ttl > 0 ? ttl : WINDOW_MS);
    },
  };
}

/**
 * The address a request came from. Behind `hops` trusted proxies, each appending to
 * X-Forwarded-For, the client is the entry `hops` from the end; without proxies Next.js fills the
 * header from the socket when the client did not send one.
 */
export function clientAddress(request: Request, hops: number): string {
  const entries = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return 'unknown';
  return (hops > 0 ? entries[Math.max(0, entries.length - hops)] : entries[0]) ?? 'unknown';
}

const slot = globalThis as typeof globalThis & { __launchdexRateLimiter?: Promise<RateLimiter> };

export function getRateLimiter(config: Config): Promise<RateLimiter> {
  slot.__launchdexRateLimiter ??= config.redisUrl
    ? createRedisRateLimiter(config.redisUrl)
    : Promise.resolve(createMemoryRateLimiter());
  return slot.__launchdexRateLimiter;
}

/** Applies the bucket's limit to this request. */
export async function enforceRateLimit(
  request: Request,
  bucket: RateLimitBucket,
  config: Config,
): Promise<void> {
  const limit = config.rateLimits[bucket];
  if (limit === 0) return;
  const limiter = await getRateLimiter(config);
  await limiter.hit(`${bucket}:${clientAddress(request, config.trustedProxyHops)}`, limit);
}
