/** Requests in flight per key (a client and a class), capped. */
export interface ConcurrencyLimiter {
  /**
   * A release function when a slot was free (call it exactly once), else undefined. Answered at
   * once in one process; a worker of a cluster waits for its primary, which counts for all of them.
   */
  acquire(key: string, max: number): (() => void) | undefined | Promise<(() => void) | undefined>;
  /** Slots held for `key` (by this process), for tests and metrics. */
  held(key: string): number;
}

/**
 * Counts live in this process: a client holding slots holds sockets on this instance too. A
 * cluster's workers use the primary's counts instead (server/http/cluster/worker-limits.ts).
 */
export function createConcurrencyLimiter(): ConcurrencyLimiter {
  const inFlight = new Map<string, number>();
  return {
    acquire(key, max) {
      const current = inFlight.get(key) ?? 0;
      if (current >= max) return undefined;
      inFlight.set(key, current + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (inFlight.get(key) ?? 1) - 1;
        if (left <= 0) inFlight.delete(key);
        else inFlight.set(key, left);
      };
    },
    held: (key) => inFlight.get(key) ?? 0,
  };
}
