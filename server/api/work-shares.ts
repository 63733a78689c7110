/** A client's share of the server's work: weights in flight, and requests waiting their turn. */
export interface WorkShares {
  /**
   * A release function (call it exactly once) when `weight` fits beside what the client already
   * has in flight: at once when it fits now, as a promise when it waits its turn; undefined at
   * once when `maxQueued` requests already wait.
   */
  enter(
    key: string,
    weight: number,
    maxWeight: number,
    maxQueued: number,
  ): (() => void) | Promise<() => void> | undefined;
  /** Weight in flight for `key`, for tests. */
  inFlight(key: string): number;
}

/**
 * Per-client fair queueing: a client's requests run at most `maxWeight` calls at once and wait
 * in order for the rest, so a burst from one client queues behind itself instead of ahead of
 * everyone else's requests in the database pool and on the event loop.
 */
export function createWorkShares(): WorkShares {
  const clients = new Map<string, { weight: number; waiting: { weight: number; start: () => void }[] }>();
  const release = (key: string, weight: number, maxWeight: number) => {
    const client = clients.get(key);
    if (!client) return;
    client.weight -= weight;
    for (;;) {
      const next = client.waiting[0];
      if (!next || (client.weight > 0 && client.weight + next.weight > maxWeight)) break;
      client.waiting.shift();
      client.weight += next.weight;
      next.start();
    }
    if (client.weight <= 0 && client.waiting.length === 0) clients.delete(key);
  };
  return {
    enter(key, weight, maxWeight, maxQueued) {
      let client = clients.get(key);
      if (!client) {
        client = { weight: 0, waiting: [] };
        clients.set(key, client);
      }
      // A request heavier than the whole share still runs, alone.
      if (client.waiting.length === 0 && (client.weight === 0 || client.weight + weight <= maxWeight)) {
        client.weight += weight;
        return releaseOnce(release, key, weight, maxWeight);
      }
      if (client.waiting.length >= maxQueued) return undefined;
      const queue = client.waiting;
      return new Promise((resolve) =>
        queue.push({ weight, start: () => resolve(releaseOnce(release, key, weight, maxWeight)) }),
      );
    },
    inFlight: (key) => clients.get(key)?.weight ?? 0,
  };
}

/**
 * The release of one entry, callable any number of times, effective once. Built at module level:
 * a named closure inside the per-request path costs a property definition per request under tsx.
 */
function releaseOnce(
  release: (key: string, weight: number, maxWeight: number) => void,
  key: string,
  weight: number,
  maxWeight: number,
): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release(key, weight, maxWeight);
  };
}
