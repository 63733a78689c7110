import { describe, expect, it } from 'vitest';
import { createDatabaseTurn, whileHolding } from '../api/database-share';
import { AcquireTimeoutError } from '../db/deadlines';
import { countDatabaseTime } from './database-time';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One read as the transports run it: a turn, then the work while holding it. */
const read = async (
  turn: ReturnType<typeof countDatabaseTime>['turn'],
  client: string,
  work: () => Promise<unknown>,
) => whileHolding(await turn(client), work);

describe('countDatabaseTime', () => {
  it("counts each read's held time, and the wait of a read queued behind its own client's", async () => {
    // One slot per client: a client's second read waits for its first.
    const { turn, totals } = countDatabaseTime(createDatabaseTurn(1));
    await Promise.all([
      read(turn, 'a', () => sleep(60)),
      read(turn, 'a', () => sleep(10)),
      read(turn, 'b', () => sleep(10)),
    ]);
    expect(totals.reads).toBe(3);
    expect(totals.heldSeconds).toBeGreaterThanOrEqual(0.075);
    expect(totals.heldSeconds).toBeLessThan(1);
    // Only a's second read waited, for the first's 60 ms; b had a slot of its own.
    expect(totals.queuedSeconds).toBeGreaterThanOrEqual(0.055);
    expect(totals.queuedSeconds).toBeLessThan(0.5);
    expect(totals.acquireTimeouts).toBe(0);
  });

  it('counts reads that got no pool session in time, however the error is wrapped, and no other failure', async () => {
    const { turn, totals } = countDatabaseTime(createDatabaseTurn(4));
    const fail = (error: Error) =>
      read(turn, 'a', async () => {
        throw error;
      }).catch(() => undefined);
    await fail(new AcquireTimeoutError('no database session within 5000 ms'));
    // drizzle's DrizzleQueryError carries the driver's error as its cause.
    await fail(new Error('Failed query', { cause: new AcquireTimeoutError('no database session') }));
    await fail(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }));
    expect(totals).toMatchObject({ reads: 3, acquireTimeouts: 2 });
  });

  it('counts a turn released twice once, and hands the release on once', async () => {
    let released = 0;
    const { turn, totals } = countDatabaseTime(() => () => {
      released++;
    });
    const release = await turn('a');
    release();
    release();
    expect(totals.reads).toBe(1);
    expect(released).toBe(1);
  });
});
