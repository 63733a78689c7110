/** How a target's failed deliveries are retried (WEBHOOK_RETRY_* settings). */
export interface RetryPolicy {
  /** Delay after the first failure; it doubles with each failure after. */
  baseMs: number;
  /** The delay stops doubling here: a target down for days is still tried this often. */
  maxMs: number;
  /** After failing this long without a success, a target is reported failing (status, logs). */
  failingAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  baseMs: 1_000,
  maxMs: 3_600_000,
  failingAfterMs: 24 * 3_600_000,
};

/**
 * The wait before attempt `attempts + 1`, after `attempts` (>= 1) failures: exponential, capped,
 * with "equal jitter" (half fixed, half random) so targets that failed together do not retry in
 * step, and no wait is shorter than half the nominal one. `random` is in [0, 1).
 */
export function retryDelayMs(policy: RetryPolicy, attempts: number, random: number): number {
  const nominal = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  return Math.round(nominal / 2 + (nominal / 2) * random);
}

/** Whether a target whose failures began at `failingSince` is past the failing threshold. */
export function isFailing(policy: RetryPolicy, failingSince: Date | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= policy.failingAfterMs;
}
