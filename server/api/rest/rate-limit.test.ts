import { describe, expect, it } from 'vitest';
import { clientAddress, createMemoryRateLimiter } from './rate-limit';

describe('rate limiting', () => {
  it('allows the limit per minute, then 429 with Retry-After until the window ends', async () => {
    let now = 1_000_000;
    const limiter = createMemoryRateLimiter(() => now);
    for (let i = 0; i < 3; i++) await limiter.hit('uploads:1.2.3.4', 3);
    await expect(limiter.hit('uploads:1.2.3.4', 3)).rejects.toMatchObject({
      code: 'rate_limited',
      status: 429,
      headers: { 'retry-after': '60' },
    });
    await limiter.hit('uploads:5.6.7.8', 3);
    now += 45_000;
    await expect(limiter.hit('uploads:1.2.3.4', 3)).rejects.toMatchObject({
      headers: { 'retry-after': '15' },
    });
    now += 15_000;
    await limiter.hit('uploads:1.2.3.4', 3);
  });

  it('takes the client address from X-Forwarded-For, trusting only the configured proxy hops', () => {
    const request = (xff?: string) =>
      new Request('http://x/', { headers: xff ? { 'x-forwarded-for': xff } : {} });
    expect(clientAddress(request('203.0.113.9'), 0)).toBe('203.0.113.9');
    // Behind one proxy the client cannot choose its address by sending a forged header first.
    expect(clientAddress(request('6.6.6.6, 203.0.113.9'), 1)).toBe('203.0.113.9');
    expect(clientAddress(request('6.6.6.6, 203.0.113.9, 10.0.0.2'), 2)).toBe('203.0.113.9');
    expect(clientAddress(request(), 0)).toBe('unknown');
  });
});
