import { isConnectionError } from '../db/connector';

/** Set by the cluster primary in each worker's environment: how many web workers the instance runs. */
export const WEB_WORKERS_ENV = 'LAUNCHDEX_WEB_WORKERS';

/**
 * This process's part of DATABASE_SLOTS_PER_CLIENT: the instance's slots divided among its web
 * workers (at least one each). A client's connections land on every worker, so a per-worker count
 * of the whole value would multiply it by the workers; asking the primary on every miss would
 * cost a round trip where a division costs nothing.
 */
export function processSlots(configured: number, workers: number): number {
  return Math.max(1, Math.floor(configured / Math.max(1, workers)));
}

/**
 * Ends a read's turn; given the error the read failed with, if it did. A read that failed on the
 * connection (refused, cut, timed out: the server was down or frozen) is not charged: its time
 * was a wait that our deadline ended, not work the database did for the client.
 */
export type ReleaseTurn = (failure?: unknown) => void;

/**
 * Runs `work` holding a turn and then hands it back, with the error the work failed on (or
 * `failureIn` finds in its result), so a read that failed on the connection is not charged.
 * @example const rows = await whileHolding(await turn(client), () => readPage(db));
 */
export async function whileHolding<T>(
  release: ReleaseTurn | undefined,
  work: () => Promise<T>,
  failureIn?: (result: T) => unknown,
): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    release?.(error);
    throw error;
  }
  release?.(failureIn?.(result));
  return result;
}

/**
 * Waits until `client` may run one more database read; resolves with the release to call when the
 * read is done. Synchronous while the client has a free slot.
 */
export type DatabaseTurn = (client: string | undefined) => ReleaseTurn | Promise<ReleaseTurn>;

/** A client's database time in one process (DATABASE_MS_PER_SECOND_PER_CLIENT). */
export interface DatabaseTime {
  /** Milliseconds a client's bucket refills per second in this process. */
  perSecond: number;
  burst: number;
  now: () => number;
}

/**
 * A client's database time, per process: a bucket of milliseconds that refills at
 * DATABASE_MS_PER_SECOND_PER_CLIENT (divided among the web workers, as the slots are) up to
 * {@link DATABASE_MS_BURST}. A read spends what it held its slot for, into debt if it must; a
 * client in debt starts its next read once the debt is repaid, holding its slot meanwhile (so
 * its queue waits behind it). One slot bounds how much of the pool a client holds; this bounds
 * how much of the database's time it takes: a client whose misses each cost 50 ms (a broad
 * search, a 1,000-candle chart) runs five of them a second, not twenty, and the cores it does
 * not take are its neighbours'. A page's handful of cheap misses stays inside the burst.
 */
export const DATABASE_MS_BURST = 250;

/** This process's part of the configured database time (undefined: unbounded). */
export function processTime(msPerSecondPerInstance: number, workers: number): DatabaseTime | undefined {
  if (msPerSecondPerInstance <= 0) return undefined;
  return {
    perSecond: msPerSecondPerInstance / Math.max(1, workers),
    burst: DATABASE_MS_BURST,
    now: () => performance.now(),
  };
}

interface Budget {
  /** Milliseconds left (negative: debt). */
  ms: number;
  /** When `ms` was last brought up to date (time.now()). */
  at: number;
}

/**
 * The process's database shares: each client may run `slots` reads at once ({@link processSlots})
 * and, with `time`, spends its database time ({@link DatabaseTime}). REST reads and tRPC calls of
 * one client share one count: the process builds one set of shares (server/process) and hands it
 * to both transports. Its other reads wait in its own queue, so one client's many concurrent
 * misses hold a bounded part of the pool and of the database's time, never all of it.
 * @example const turn = createDatabaseTurn(2); const release = await turn('1.2.3.4'); release();
 */
export function createDatabaseTurn(slots: number, time?: DatabaseTime): DatabaseTurn {
  const shares = createWorkShares();
  // Clients whose bucket is not full; a full bucket is no entry.
  const budgets = new Map<string, Budget>();
  const upToDate = (key: string, clock: DatabaseTime): Budget => {
    const now = clock.now();
    const budget = budgets.get(key) ?? { ms: clock.burst, at: now };
    budget.ms = Math.min(clock.burst, budget.ms + ((now - budget.at) * clock.perSecond) / 1000);
    budget.at = now;
    return budget;
  };
  // Drops the buckets that are full by now, when many clients have left one behind.
  const sweep = (clock: DatabaseTime) => {
    if (budgets.size < 10_000) return;
    for (const key of [...budgets.keys()]) if (upToDate(key, clock).ms >= clock.burst) budgets.delete(key);
  };
  return (client) => {
    const key = client ?? 'anonymous';
    // Queued reads are bounded before they get here: by the front's work share per client
    // (WORK_PER_CLIENT, QUEUED_PER_CLIENT), so this queue needs no bound of its own.
    const turn = shares.enter(key, 1, slots, Number.POSITIVE_INFINITY);
    if (!turn) throw new Error('an unbounded queue refused a request');
    if (!time) return turn;
    const charged = (release: () => void): ReleaseTurn => {
      const started = time.now();
      let done = false;
      return (failure) => {
        if (done) return;
        done = true;
        const budget = upToDate(key, time);
        if (failure === undefined || !isConnectionError(failure)) budget.ms -= time.now() - started;
        if (budget.ms >= time.burst) budgets.delete(key);
        else {
          budgets.set(key, budget);
          sweep(time);
        }
        release();
      };
    };
    const start = (release: () => void): ReleaseTurn | Promise<ReleaseTurn> => {
      const debt = budgets.has(key) ? -upToDate(key, time).ms : 0;
      if (debt <= 0) return charged(release);
      return new Promise((resolve) =>
        setTimeout(() => resolve(charged(release)), Math.ceil((debt * 1000) / time.perSecond)),
      );
    };
    return typeof turn === 'function' ? start(turn) : turn.then(start);
  };
}

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
