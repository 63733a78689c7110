import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisReachable } from '../../test/redis';
import { type StallProxy, startStallProxy } from '../../test/stall-proxy';
import { createRedisRateLimiter, type RateLimiter } from './rate-limit';

if (!(await redisReachable())) throw new Error('this suite needs a Redis on 127.0.0.1:6379 (redis-server)');

// One request per 10 s: nothing refills while the test runs.
const policy = { perMinute: 6, burst: 5 };
const TIMEOUT_MS = 200;

describe('the Redis rate limiter when Redis hangs', () => {
  let proxy: StallProxy;
  let limiter: RateLimiter;
  beforeAll(async () => {
    // A real Redis behind a proxy that can stop answering while keeping the connection open.
    proxy = await startStallProxy(6379);
    limiter = await createRedisRateLimiter(`redis://127.0.0.1:${proxy.port}`, {
      prefix: `launchdex:test:stall:${process.pid}:${Date.now()}:`,
      commandTimeoutMs: TIMEOUT_MS,
    });
  });
  afterAll(async () => {
    proxy?.resume();
    await proxy?.close();
  });

  const timed = async (key: string) => {
    const started = performance.now();
    const decision = await limiter.take(key, policy, 1);
    return { ...decision, ms: performance.now() - started };
  };

  it(`fails open within the ${TIMEOUT_MS} ms command timeout, then skips the store for a second, then counts again`, async () => {
    // Healthy: Redis counts (5 at once, then refused).
    for (let i = 0; i < 5; i++) expect((await timed('a')).allowed).toBe(true);
    expect((await timed('a')).allowed).toBe(false);

    proxy.stall();
    // The first check waits for its timeout, no longer, and lets the request through.
    const first = await timed('a');
    expect(first.allowed).toBe(true);
    expect(first.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(first.ms).toBeLessThan(TIMEOUT_MS + 150);
    // For the next second nothing waits for the hung store: 50 checks at once answer at once.
    const started = performance.now();
    const burst = await Promise.all(Array.from({ length: 50 }, () => limiter.take('a', policy, 1)));
    expect(performance.now() - started).toBeLessThan(50);
    expect(burst.every((decision) => decision.allowed)).toBe(true);

    // Still hung a second later: one more timeout, then let through again.
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    const again = await timed('a');
    expect(again.allowed).toBe(true);
    expect(again.ms).toBeLessThan(TIMEOUT_MS + 150);

    // Redis answers again: after the skip window, the bucket counts where it was (still empty).
    proxy.resume();
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect((await timed('a')).allowed).toBe(false);
    expect((await timed('b')).allowed).toBe(true);
  });
});
