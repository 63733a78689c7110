import { describe, expect, it } from 'vitest';
import { defaultRetryPolicy, isFailing, retryDelayMs } from './retry';

// Rule: failed deliveries back off exponentially with jitter, capped, and keep going past 24 h.
describe('webhook retry policy', () => {
  const policy = defaultRetryPolicy;

  it('doubles from the base, within [nominal/2, nominal]', () => {
    for (let attempts = 1; attempts <= 8; attempts++) {
      const nominal = policy.baseMs * 2 ** (attempts - 1);
      expect(retryDelayMs(policy, attempts, 0)).toBe(nominal / 2);
      expect(retryDelayMs(policy, attempts, 0.999_999)).toBeLessThanOrEqual(nominal);
      expect(retryDelayMs(policy, attempts, 0.999_999)).toBeGreaterThan(nominal * 0.99);
    }
  });

  it('stops doubling at the cap, however many attempts', () => {
    expect(retryDelayMs(policy, 50, 1)).toBe(policy.maxMs);
    expect(retryDelayMs(policy, 10_000, 0.5)).toBe(policy.maxMs * 0.75);
  });

  it('retries for at least the failing threshold: the cumulative minimum wait passes 24 h only after many tries', () => {
    let waited = 0;
    let attempts = 0;
    while (waited < policy.failingAfterMs) waited += retryDelayMs(policy, ++attempts, 0);
    // Nothing ever stops the retries; this only shows the cap keeps them frequent (>= hourly).
    expect(attempts).toBeGreaterThan(24);
  });

  it('reports failing once failures have lasted the threshold', () => {
    const now = new Date('2026-01-02T00:00:00Z');
    expect(isFailing(policy, null, now)).toBe(false);
    expect(isFailing(policy, new Date(now.getTime() - policy.failingAfterMs + 1), now)).toBe(false);
    expect(isFailing(policy, new Date(now.getTime() - policy.failingAfterMs), now)).toBe(true);
  });
});
