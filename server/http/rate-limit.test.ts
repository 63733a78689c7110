import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config';
import { createMemoryRateLimiter, rateLimitHeaders, takeRateLimit } from './rate-limit';

const config = (env: Record<string, string> = {}) => parseConfig({ ...env });

describe('rate limiting (GCRA buckets)', () => {
  it('allows a burst of the quota, then one request per interval, and says when to retry', async () => {
    let now = 1_000_000;
    const limiter = createMemoryRateLimiter(() => now);
    // 3 a minute with a burst of 3: one request every 20 s once the burst is spent.
    const cfg = config({ RATE_LIMIT_UPLOADS_PER_MINUTE: '3' });
    for (let i = 0; i < 3; i++)
      expect(await takeRateLimit(limiter, cfg, 'uploads', '1.2.3.4', 1)).toMatchObject({ allowed: true });
    const refused = await takeRateLimit(limiter, cfg, 'uploads', '1.2.3.4', 1);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetMs: 60_000, retryAfterMs: 20_000 });
    expect(refused && rateLimitHeaders(refused)['retry-after']).toBe('20');
    // Another client has its own bucket.
    expect(await takeRateLimit(limiter, cfg, 'uploads', '5.6.7.8', 1)).toMatchObject({ allowed: true });
    now += 15_000;
    const later = await takeRateLimit(limiter, cfg, 'uploads', '1.2.3.4', 1);
    expect(later && rateLimitHeaders(later)['retry-after']).toBe('5');
    now += 5_000;
    expect(await takeRateLimit(limiter, cfg, 'uploads', '1.2.3.4', 1)).toMatchObject({ allowed: true });
    expect(await takeRateLimit(limiter, cfg, 'uploads', '1.2.3.4', 1)).toMatchObject({ allowed: false });
  });

  it('reads come in bursts of RATE_LIMIT_READS_BURST, not a whole minute at once', async () => {
    const now = 0;
    const limiter = createMemoryRateLimiter(() => now);
    const cfg = config();
    let allowed = 0;
    for (let i = 0; i < 1_200; i++)
      if ((await takeRateLimit(limiter, cfg, 'reads', 'c', 1))?.allowed) allowed++;
    expect(allowed).toBe(120);
  });

  it('counts a batch by its cost, and a refused batch does not spend what is left', async () => {
    const limiter = createMemoryRateLimiter(() => 0);
    const cfg = config({ RATE_LIMIT_READS_PER_MINUTE: '600', RATE_LIMIT_READS_BURST: '10' });
    expect(await takeRateLimit(limiter, cfg, 'reads', 'c', 7)).toMatchObject({ allowed: true, remaining: 3 });
    expect(await takeRateLimit(limiter, cfg, 'reads', 'c', 5)).toMatchObject({
      allowed: false,
      remaining: 3,
    });
    expect(await takeRateLimit(limiter, cfg, 'reads', 'c', 3)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('a limit of 0 turns the bucket off', async () => {
    const limiter = createMemoryRateLimiter();
    expect(await takeRateLimit(limiter, config({ RATE_LIMIT_READS_PER_MINUTE: '0' }), 'reads', 'c', 1)).toBe(
      undefined,
    );
  });

  it('never lets more than burst + rate x elapsed through, whatever the arrival pattern', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 1, max: 5 })), {
          maxLength: 200,
        }),
        async (perMinute, burst, arrivals) => {
          let now = 0;
          const limiter = createMemoryRateLimiter(() => now);
          const policy = { perMinute, burst };
          let admitted = 0;
          for (const [gap, cost] of arrivals) {
            now += gap;
            if ((await limiter.take('k', policy, cost)).allowed) admitted += cost;
          }
          expect(admitted).toBeLessThanOrEqual(burst + Math.floor((now * perMinute) / 60_000) + 1);
        },
      ),
    );
  });

  it('describes each decision with the IETF RateLimit-Policy and RateLimit fields', () => {
    const allowed = {
      bucket: 'reads' as const,
      policy: { perMinute: 1200, burst: 120 },
      allowed: true,
      remaining: 117,
      resetMs: 150,
      retryAfterMs: 0,
    };
    expect(rateLimitHeaders(allowed)).toEqual({
      'ratelimit-policy': '"reads";q=120;w=6',
      ratelimit: '"reads";r=117;t=1',
    });
    expect(
      rateLimitHeaders({ ...allowed, allowed: false, remaining: 0, retryAfterMs: 41_200 }),
    ).toMatchObject({
      'retry-after': '42',
    });
  });
});

describe('a charge after the answer', () => {
  it('is counted even past the burst, into debt at most one burst deep, and later requests wait for it', async () => {
    let now = 1_000_000;
    const limiter = createMemoryRateLimiter(() => now);
    const policy = { perMinute: 60, burst: 4 };
    expect((await limiter.take('c', policy, 1)).allowed).toBe(true);
    // Three more fit the burst; a charge of 10 goes into debt instead of being dropped.
    expect((await limiter.take('c', policy, 3)).allowed).toBe(true);
    expect((await limiter.take('c', policy, 10, 'charge')).allowed).toBe(true);
    // The debt stops one burst past full (8 s ahead at 1/s): the next request fits 5 s later.
    const refused = await limiter.take('c', policy, 1);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBe(5_000);
    now += 5_000;
    expect((await limiter.take('c', policy, 1)).allowed).toBe(true);
    // Without the charge mode a cost that does not fit is refused and not counted.
    const fresh = createMemoryRateLimiter(() => now);
    expect((await fresh.take('d', policy, 10)).allowed).toBe(false);
    expect((await fresh.take('d', policy, 4)).allowed).toBe(true);
  });
});
