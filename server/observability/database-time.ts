import type { DatabaseTurn, ReleaseTurn } from '../api/database-share';
import type { DatabaseTimeTotals } from './metrics';

/** server/db/deadlines.ts's AcquireTimeoutError, which drizzle may wrap as a cause. */
const acquireTimedOut = (error: unknown, depth = 0): boolean => {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  return code === 'CONNECTION_ACQUIRE_TIMEOUT' || acquireTimedOut(cause, depth + 1);
};

/**
 * `turn` with this process's database time counted: every read the API runs holds a turn from the
 * moment its client may start to the moment it is answered (server/api/database-share.ts), so the
 * turn is where the API's database time, and its waits, can be measured whichever transport asked.
 * @example const { turn, totals } = countDatabaseTime(createDatabaseTurn(2));
 */
export function countDatabaseTime(turn: DatabaseTurn): { turn: DatabaseTurn; totals: DatabaseTimeTotals } {
  const totals: DatabaseTimeTotals = { reads: 0, heldSeconds: 0, queuedSeconds: 0, acquireTimeouts: 0 };
  const held = (release: ReleaseTurn): ReleaseTurn => {
    const started = performance.now();
    let done = false;
    return (failure) => {
      if (done) return;
      done = true;
      totals.reads++;
      totals.heldSeconds += (performance.now() - started) / 1000;
      if (failure !== undefined && acquireTimedOut(failure)) totals.acquireTimeouts++;
      release(failure);
    };
  };
  return {
    totals,
    turn: (client) => {
      const given = turn(client);
      if (!(given instanceof Promise)) return held(given);
      const asked = performance.now();
      return given.then((release) => {
        totals.queuedSeconds += (performance.now() - asked) / 1000;
        return held(release);
      });
    },
  };
}
