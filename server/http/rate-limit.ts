import type { Logger } from 'pino';
import type { WriteBucket } from '../api/rest/define';
import type { Config } from '../config';

/** What a client's requests are counted against (docs/security.md lists the defaults). */
export type RateLimitBucket = 'reads' | WriteBucket;

/** A bucket's rule: a sustained rate and how many requests may come at once. */
export interface RateLimitPolicy {
  perMinute: number;
  burst: number;
}

/** A bucket's state for one client after a request was counted (or refused). */
export interface RateLimitDecision {
  bucket: RateLimitBucket;
  allowed: boolean;
  policy: RateLimitPolicy;
  /** Requests that could be made right now. */
  remaining: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
  /** When refused: milliseconds until this request would fit. */
  retryAfterMs: number;
}

export interface RateLimiter {
  /**
   * Counts `cost` requests of `key` under `policy`. A request that does not fit is refused and
   * not counted, so a client's smaller requests still fit what is left.
   */
  take(
    key: string,
    policy: RateLimitPolicy,
    cost: number,
    /**
     * `charge`: count `cost` whether or not it fits, into debt up to one more burst: a cost
     * known only after the request was answered (a read the database computed). The client's
     * next requests wait until the debt is paid off.
     */
    mode?: TakeMode,
  ): TakeResult | Promise<TakeResult>;
}

/** A bucket's answer to one take. A store in this process answers at once, a shared one later. */
export type TakeResult = Omit<RateLimitDecision, 'bucket' | 'policy'>;

/** `fit`: count the cost only if it fits (admission); `charge`: count it anyway (see take). */
export type TakeMode = 'fit' | 'charge';

/**
 * GCRA (a token bucket kept as one timestamp): each request pushes the client's "theoretical
 * arrival time" by one emission interval; a request fits while that time runs at most `burst`
 * intervals ahead of now. Unlike fixed windows it never lets a whole minute's quota through in
 * one second, which is what stalls everyone else.
 */
function gcra(
  tatMs: number,
  nowMs: number,
  policy: RateLimitPolicy,
  cost: number,
  mode: TakeMode = 'fit',
): TakeResult & { tat: number } {
  const interval = 60_000 / policy.perMinute;
  const capacity = policy.burst * interval;
  const start = Math.max(tatMs, nowMs);
  // A charge goes into debt, but never more than one burst deep.
  const next =
    mode === 'charge' ? Math.min(start + cost * interval, nowMs + 2 * capacity) : start + cost * interval;
  const allowed = mode === 'charge' || next - nowMs <= capacity;
  const backlog = (allowed ? next : start) - nowMs;
  // One object per take, the bucket's new arrival time beside the decision: every read takes one.
  return {
    tat: allowed ? next : start,
    allowed,
    remaining: Math.max(0, Math.floor((capacity - backlog) / interval + 1e-9)),
    resetMs: backlog,
    retryAfterMs: allowed ? 0 : next - nowMs - capacity,
  };
}

/** Past this many tracked clients the memory store drops idle ones at once, not each minute. */
const MEMORY_SWEEP_THRESHOLD = 100_000;

/** GCRA buckets in memory, answered synchronously (the cluster primary answers workers from these). */
export interface MemoryBuckets {
  take(
    key: string,
    policy: RateLimitPolicy,
    cost: number,
    mode?: TakeMode,
  ): Omit<RateLimitDecision, 'bucket' | 'policy'>;
}

/**
 * Buckets in this process's memory. Idle clients are forgotten once a minute (or at once past
 * 100,000 tracked clients): a bucket whose arrival time has passed is full.
 */
export function createMemoryBuckets(now: () => number = Date.now): MemoryBuckets {
  const arrivals = new Map<string, number>();
  let sweepAt = 0;
  return {
    take(key, policy, cost, mode) {
      const time = now();
      if (time > sweepAt || arrivals.size > MEMORY_SWEEP_THRESHOLD) {
        for (const [k, tat] of arrivals) if (tat <= time) arrivals.delete(k);
        sweepAt = time + 60_000;
      }
      const taken = gcra(arrivals.get(key) ?? 0, time, policy, cost, mode);
      if (taken.tat > time) arrivals.set(key, taken.tat);
      return taken;
    },
  };
}

/** Buckets in this process's memory: right for one process. */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const buckets = createMemoryBuckets(now);
  // Answered synchronously: an admission that needs no other wait costs no promise.
  return { take: (key, policy, cost, mode) => buckets.take(key, policy, cost, mode) };
}

/** The same bucket in Redis, on Redis's clock, checked and counted in one step. */
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local charge = ARGV[4] == '1'
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local nextTat = tat + cost * interval
if charge and nextTat - now > 2 * capacity then nextTat = now + 2 * capacity end
if charge or nextTat - now <= capacity then
  redis.call('SET', KEYS[1], nextTat, 'PX', math.ceil(nextTat - now) + 1)
  return {1, math.ceil(nextTat - now), 0}
end
return {0, math.ceil(tat - now), math.ceil(nextTat - now - capacity)}`;

export interface RedisRateLimiterOptions {
  /** Key prefix of the buckets. */
  prefix?: string;
  /** How long one check waits for Redis before the request is let through (default 250 ms). */
  commandTimeoutMs?: number;
  /** Where an unavailable store is reported (the process's logger); absent: let through silently. */
  logger?: Logger;
}

/**
 * The same buckets in Redis, shared by every web instance.
 *
 * Fails open: when Redis errors or does not answer within `commandTimeoutMs`, the request is let
 * through (logged once per second). The buckets protect capacity; what protects the process
 * itself (work shares, upload and stream slots, connection and pipeline caps, deadlines) is
 * counted in the process and holds without Redis, so an outage of the limiter's store costs
 * exactness of the rate limits, never the API. After a failure the store is not asked again for
 * a second, so a stalled Redis costs at most one timeout per second of waiting, not one per
 * request, and its client never queues more than a second's worth of unanswered checks.
 */
export async function createRedisRateLimiter(
  url: string,
  options: RedisRateLimiterOptions = {},
): Promise<RateLimiter> {
  const prefix = options.prefix ?? 'launchdex:rl:';
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
    commandTimeout: options.commandTimeoutMs ?? 250,
  });
  redis.on('error', () => {});
  // Commands are not queued while disconnected (they would wait for a Redis that may never
  // come), so the first requests would find no connection yet: wait for it, or its first failure.
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, 2_000);
    redis.once('ready', done);
    redis.once('error', done);
  });
  let unavailableUntil = 0;
  const letThrough = (policy: RateLimitPolicy) => ({
    allowed: true,
    remaining: policy.burst,
    resetMs: 0,
    retryAfterMs: 0,
  });
  return {
    async take(key, policy, cost, mode) {
      if (Date.now() < unavailableUntil) return letThrough(policy);
      const interval = 60_000 / policy.perMinute;
      try {
        const [allowed, backlog, retryAfterMs] = (await redis.eval(
          TAKE_SCRIPT,
          1,
          `${prefix}${key}`,
          interval,
          policy.burst * interval,
          cost,
          mode === 'charge' ? 1 : 0,
        )) as [number, number, number];
        return {
          allowed: allowed === 1,
          remaining: Math.max(0, Math.floor((policy.burst * interval - backlog) / interval + 1e-9)),
          resetMs: backlog,
          retryAfterMs,
        };
      } catch (error) {
        if (Date.now() >= unavailableUntil) {
          unavailableUntil = Date.now() + STORE_RETRY_MS;
          options.logger?.warn({ err: error }, 'rate limiter store unavailable; requests let through');
        }
        return letThrough(policy);
      }
    },
  };
}

/** How long the Redis store is not asked after it failed or timed out. */
const STORE_RETRY_MS = 1_000;

/**
 * Counts `cost` requests of `client` in `bucket`; undefined when the bucket's limit is 0 (off).
 * The decision is synchronous when the limiter's store is (this process's memory), a promise when
 * it is shared (Redis, the cluster primary): the front's fast path awaits nothing it need not.
 * @example const decision = await takeRateLimit(limiter, config, 'reads', '203.0.113.9', 1);
 */
export function takeRateLimit(
  limiter: RateLimiter,
  config: Config,
  bucket: RateLimitBucket,
  client: string,
  cost: number,
  mode: TakeMode = 'fit',
): RateLimitDecision | undefined | Promise<RateLimitDecision | undefined> {
  const policy = config.rateLimits[bucket];
  if (policy.perMinute === 0) return undefined;
  const taken = limiter.take(`${bucket}:${client}`, policy, cost, mode);
  if (taken instanceof Promise) return taken.then((result) => decisionOf(bucket, policy, result));
  return decisionOf(bucket, policy, taken);
}

/** A take's result as a decision, its fields listed (no spread): one object of one shape. */
function decisionOf(bucket: RateLimitBucket, policy: RateLimitPolicy, taken: TakeResult): RateLimitDecision {
  return {
    bucket,
    policy,
    allowed: taken.allowed,
    remaining: taken.remaining,
    resetMs: taken.resetMs,
    retryAfterMs: taken.retryAfterMs,
  };
}

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers) of a decision, plus
 * Retry-After when it refused. The policy is stated as its burst per the time the bucket takes to
 * refill (`"reads";q=120;w=6`: 120 at once, 20 a second sustained); `r` is what may be sent now,
 * `t` the seconds until the bucket is full.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'ratelimit-policy': policyHeader(decision),
    ratelimit: rateLimitField(decision),
    ...(decision.allowed
      ? {}
      : { 'retry-after': String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) }),
  };
}

/** `RateLimit` of a decision: what may be sent now, and the seconds until the bucket is full. */
export function rateLimitField(decision: RateLimitDecision): string {
  return `"${decision.bucket}";r=${decision.remaining};t=${Math.ceil(decision.resetMs / 1000)}`;
}

const policyHeaders = new WeakMap<RateLimitPolicy, string>();

/** `RateLimit-Policy` of a decision's bucket: the same text for every request, built once per policy. */
export function policyHeader({ bucket, policy }: RateLimitDecision): string {
  let header = policyHeaders.get(policy);
  if (header === undefined) {
    const refill = Math.max(1, Math.round((policy.burst * 60) / policy.perMinute));
    header = `"${bucket}";q=${policy.burst};w=${refill}`;
    policyHeaders.set(policy, header);
  }
  return header;
}
