import { describe, expect, it, vi } from 'vitest';
import { workerEnvironment } from '../http/cluster/worker-count';
import { createDatabaseTurn, processSlots } from './database-share';

describe('database slots per client', () => {
  it('divide the instance slots among its web workers, at least one each', () => {
    expect(processSlots(2, 1)).toBe(2);
    expect(processSlots(2, 2)).toBe(1);
    expect(processSlots(2, 3)).toBe(1);
    expect(processSlots(8, 3)).toBe(2);
    // What the primary hands each worker is what the worker divides by.
    expect(workerEnvironment(1, false, 2)).toEqual({ LAUNCHDEX_WEB_WORKERS: '2' });
    expect(workerEnvironment(0, false, 1)).toEqual({});
  });

  it("a client's reads past its slots wait in order; other clients are not held up", async () => {
    const order: string[] = [];
    const databaseTurn = createDatabaseTurn(2);
    const first = await databaseTurn('share-test-a');
    const second = await databaseTurn('share-test-a');
    const third = Promise.resolve(databaseTurn('share-test-a')).then((release) => {
      order.push('a3');
      return release;
    });
    const other = await databaseTurn('share-test-b');
    order.push('b1');
    await Promise.resolve();
    expect(order).toEqual(['b1']);
    first();
    (await third)();
    expect(order).toEqual(['b1', 'a3']);
    second();
    other();
  });

  it('a read that failed on the connection (a dead or frozen server) is not charged; one that failed otherwise is', () => {
    let now = 0;
    const time = { perSecond: 100, burst: 50, now: () => now };
    const turn = createDatabaseTurn(1, time);
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const cut = new Error('Failed query', {
      cause: Object.assign(new Error('cut'), { code: 'CONNECTION_CUT' }),
    });
    for (const failure of [refused, cut]) {
      const release = turn('wait-test') as (failure?: unknown) => void;
      now += 2_000; // the wait our deadline ended
      release(failure);
      const next = turn('wait-test');
      expect(typeof next, 'still within its burst').toBe('function');
      (next as () => void)();
    }
    const release = turn('wait-test') as (failure?: unknown) => void;
    now += 2_000;
    release(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }));
    expect(turn('wait-test'), 'a read the server ran and cancelled cost its time').toBeInstanceOf(Promise);
  });

  it("a client's reads spend its database time; one in debt waits until it is repaid, others do not", async () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const time = { perSecond: 100, burst: 50, now: () => now };
      const fourSlots = createDatabaseTurn(4, time);
      const oneSlot = createDatabaseTurn(1, time);
      // Within the burst: at once.
      const first = fourSlots('time-test-a');
      expect(typeof first).toBe('function');
      now += 200; // the read held its slot 200 ms: 150 ms of debt
      (first as () => void)();
      const second = fourSlots('time-test-a');
      expect(second).toBeInstanceOf(Promise);
      let started = false;
      void (second as Promise<() => void>).then(() => {
        started = true;
      });
      // Another client is not charged for it.
      expect(typeof fourSlots('time-test-b')).toBe('function');
      now += 1000;
      await vi.advanceTimersByTimeAsync(1400);
      expect(started).toBe(false);
      now += 500;
      await vi.advanceTimersByTimeAsync(200);
      expect(started).toBe(true);
      // Cheap reads within the refill never wait.
      now += 10_000;
      for (let i = 0; i < 20; i++) {
        const turn = oneSlot('time-test-c');
        expect(typeof turn).toBe('function');
        now += 1;
        (turn as () => void)();
        now += 50;
      }
    } finally {
      vi.useRealTimers();
    }
  });
});
