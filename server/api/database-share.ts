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
 * Waits until `client` may run one more database read (its {@link processSlots} at once in this
 * process); resolves with the release to call when the read is done. REST reads and tRPC calls of
 * one client share one count: the process holds one set of shares, whichever transport
 * asks. Its other reads wait in its own queue, so one
 * client's many concurrent misses hold a bounded part of the pool, never all of it.
 */
export function databaseTurn(
  client: string | undefined,
  slots = thisProcessSlots(),
): (() => void) | Promise<() => void> {
  slot.databaseShares ??= createWorkShares();
  // Queued reads are bounded before they get here: by the front's work share per client
  // (WORK_PER_CLIENT, QUEUED_PER_CLIENT), so this queue needs no bound of its own.
  const turn = slot.databaseShares.enter(client ?? 'anonymous', 1, slots, Number.POSITIVE_INFINITY);
  if (!turn) throw new Error('an unbounded queue refused a request');
  return turn;
}

/**
 * The request header the front writes with the client's key for requests it hands to Next
 * (tRPC, pages); a client's own header of that name is removed first, so it cannot be forged.
 */
export const CLIENT_HEADER = 'x-launchdex-client';
