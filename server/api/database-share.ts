import { createWorkShares } from './work-shares';

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
 * Waits until `client` may run one more database read; resolves with the release to call when the
 * read is done. Synchronous while the client has a free slot.
 */
export type DatabaseTurn = (client: string | undefined) => (() => void) | Promise<() => void>;

/**
 * The process's database shares: each client may run `slots` reads at once ({@link processSlots}).
 * REST reads and tRPC calls of one client share one count: the process builds one set of shares
 * (server/process) and hands it to both transports. Its other reads wait in its own queue, so one
 * client's many concurrent misses hold a bounded part of the pool, never all of it.
 * @example const turn = createDatabaseTurn(2); const release = await turn('1.2.3.4'); release();
 */
export function createDatabaseTurn(slots: number): DatabaseTurn {
  const shares = createWorkShares();
  return (client) => {
    // Queued reads are bounded before they get here: by the front's work share per client
    // (WORK_PER_CLIENT, QUEUED_PER_CLIENT), so this queue needs no bound of its own.
    const turn = shares.enter(client ?? 'anonymous', 1, slots, Number.POSITIVE_INFINITY);
    if (!turn) throw new Error('an unbounded queue refused a request');
    return turn;
  };
}

/**
 * The request header the front writes with the client's key for requests it hands to Next
 * (tRPC, pages); a client's own header of that name is removed first, so it cannot be forged.
 */
export const CLIENT_HEADER = 'x-launchdex-client';
