import { describe, expect, it } from 'vitest';
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
});
