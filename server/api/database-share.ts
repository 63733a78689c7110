import { getConfig } from '../config';
import { createWorkShares, type WorkShares } from './work-shares';

/** Set by the cluster primary in each worker's environment: how many web workers the instance runs. */
export const WEB_WORKERS_ENV = 'LAUNCHDEX_WEB_WORKERS';

const slot: { databaseShares?: WorkShares } = {};

/**
 * This process's part of DATABASE_SLOTS_PER_CLIENT: the instance's slots divided among its web
 * workers (at least one each). A client's connections land on every worker, so a per-worker count
 * of the whole value would multiply it by the workers; asking the primary on every miss would
 * cost a round trip where a division costs nothing.
 */
export function processSlots(
  configured = getConfig().databaseSlotsPerClient,
  workers = Number(process.env[WEB_WORKERS_ENV] ?? 1),
): number {
  return Math.max(1, Math.floor(configured / Math.max(1, workers)));
}

/** This process's slots, read once: the configuration and the worker count are fixed at start. */
let slotsOfThisProcess: number | undefined;
function thisProcessSlots(): number {
  if (slotsOfThisProcess === undefined) slotsOfThisProcess = processSlots();
  return slotsOfThisProcess;
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

interface Budget {
  /** Milliseconds left (negative: debt). */
  ms: number;
  /** When `ms` was last brought up to date (performance.now()). */
  at: number;
}

/** Bucket state of the clients whose bucket is not full; a full bucket is no entry. */
const budgets = new Map<string, Budget>();

export interface DatabaseTime {
  /** Milliseconds a client's bucket refills per second in this process. */
  perSecond: number;
  burst: number;
  now: () => number;
}

/** This process's part of DATABASE_MS_PER_SECOND_PER_CLIENT (undefined: unbounded), read once. */
let timeOfThisProcess: DatabaseTime | null | undefined;
function thisProcessTime(): DatabaseTime | undefined {
  if (timeOfThisProcess === undefined) {
    const perInstance = getConfig().databaseMsPerSecondPerClient;
    const workers = Math.max(1, Number(process.env[WEB_WORKERS_ENV] ?? 1));
    timeOfThisProcess =
      perInstance > 0
        ? { perSecond: perInstance / workers, burst: DATABASE_MS_BURST, now: () => performance.now() }
        : null;
  }
  return timeOfThisProcess ?? undefined;
}

function upToDate(key: string, time: DatabaseTime): Budget {
  const now = time.now();
  const budget = budgets.get(key) ?? { ms: time.burst, at: now };
  budget.ms = Math.min(time.burst, budget.ms + ((now - budget.at) * time.perSecond) / 1000);
  budget.at = now;
  return budget;
}

/** Drops the buckets that are full by now, when many clients have left one behind. */
function sweep(time: DatabaseTime): void {
  if (budgets.size < 10_000) return;
  for (const key of [...budgets.keys()]) if (upToDate(key, time).ms >= time.burst) budgets.delete(key);
}

/**
 * Waits until `client` may run one more database read (its {@link processSlots} at once in this
 * process, and its database time repaid); resolves with the release to call when the read is done,
 * which charges the read's time to the client. REST reads and tRPC calls of one client share one
 * count: the process holds one set of shares, whichever transport asks. Its other reads wait in
 * its own queue, so one client's many concurrent misses hold a bounded part of the pool and of the
 * database's time, never all of it.
 */
export function databaseTurn(
  client: string | undefined,
  slots = thisProcessSlots(),
  time: DatabaseTime | undefined = thisProcessTime(),
): (() => void) | Promise<() => void> {
  slot.databaseShares ??= createWorkShares();
  const key = client ?? 'anonymous';
  // Queued reads are bounded before they get here: by the front's work share per client
  // (WORK_PER_CLIENT, QUEUED_PER_CLIENT), so this queue needs no bound of its own.
  const turn = slot.databaseShares.enter(key, 1, slots, Number.POSITIVE_INFINITY);
  if (!turn) throw new Error('an unbounded queue refused a request');
  if (!time) return turn;
  const charged = (release: () => void) => {
    const started = time.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const budget = upToDate(key, time);
      budget.ms -= time.now() - started;
      if (budget.ms >= time.burst) budgets.delete(key);
      else {
        budgets.set(key, budget);
        sweep(time);
      }
      release();
    };
  };
  const start = (release: () => void): (() => void) | Promise<() => void> => {
    const debt = budgets.has(key) ? -upToDate(key, time).ms : 0;
    if (debt <= 0) return charged(release);
    return new Promise((resolve) =>
      setTimeout(() => resolve(charged(release)), Math.ceil((debt * 1000) / time.perSecond)),
    );
  };
  return typeof turn === 'function' ? start(turn) : turn.then(start);
}

/**
 * The request header the front writes with the client's key for requests it hands to Next
 * (tRPC, pages); a client's own header of that name is removed first, so it cannot be forged.
 */
export const CLIENT_HEADER = 'x-launchdex-client';
