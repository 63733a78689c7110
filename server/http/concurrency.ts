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
 * Counts one more hold of `key` in `holds` and returns its release: the first call gives the hold
 * back (the key leaves the map at zero) and then runs `released`; later calls do nothing.
 */
export function countedHold(holds: Map<string, number>, key: string, released?: () => void): () => void {
  holds.set(key, (holds.get(key) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const left = (holds.get(key) ?? 1) - 1;
    if (left <= 0) holds.delete(key);
    else holds.set(key, left);
    released?.();
  };
}

/**
 * Counts live in this process: a client holding slots holds sockets on this instance too. A
 * cluster's workers use the primary's counts instead (server/http/cluster/worker-limits.ts).
 */
export function createConcurrencyLimiter(): ConcurrencyLimiter {
  const inFlight = new Map<string, number>();
  return {
    acquire(key, max) {
      if ((inFlight.get(key) ?? 0) >= max) return undefined;
      return countedHold(inFlight, key);
    },
    held: (key) => inFlight.get(key) ?? 0,
  };
}
