/** How the primary paces replacements of workers that die. */
export interface RestartPolicy {
  /** Wait before replacing a worker that ran well (or the first one to die). */
  firstDelayMs: number;
  /** The longest wait: a worker that cannot start is retried this often, never faster. */
  maxDelayMs: number;
  /** A worker that lived this long was healthy: the next replacement waits `firstDelayMs` again. */
  stableAfterMs: number;
}

export const defaultRestartPolicy: RestartPolicy = {
  firstDelayMs: 1_000,
  maxDelayMs: 30_000,
  stableAfterMs: 30_000,
};

/**
 * The wait before replacing a worker that exited after `livedMs`, given the wait before the
 * previous replacement in its slot (0: none yet). Deaths in quick succession double it up to
 * `maxDelayMs`, so a worker that crashes at start-up (a bad release, a database that refuses it)
 * costs a fork every 30 s, not a tight loop of forks.
 * @example restartDelay(4_000, 2_000, defaultRestartPolicy) // 8_000
 */
export function restartDelay(previousDelayMs: number, livedMs: number, policy: RestartPolicy): number {
  if (previousDelayMs <= 0 || livedMs >= policy.stableAfterMs) return policy.firstDelayMs;
  return Math.min(policy.maxDelayMs, previousDelayMs * 2);
}
