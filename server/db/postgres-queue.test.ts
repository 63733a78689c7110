import { describe, expect, it } from 'vitest';
import Queue from './postgres-queue';

/**
 * An array that records the longest it ever was: the queue copies its initial array with
 * `slice`, which makes another of the same class, so the queue's own storage is watched.
 */
class Watched<T> extends Array<T> {
  static longest = 0;
  override push(...items: T[]): number {
    const length = super.push(...items);
    Watched.longest = Math.max(Watched.longest, length);
    return length;
  }
}

describe('the connection queue built into postgres.js (scripts/build-server.mjs)', () => {
  it('keeps its storage bounded when it never drains: a pool that always has an idle connection', () => {
    Watched.longest = 0;
    const queue = Queue(new Watched<object>());
    const connections = Array.from({ length: 8 }, (_, id) => ({ id }));
    for (const connection of connections) queue.push(connection);
    // What the pool does per query with an idle connection: take it, move it (remove it from
    // the queue it was in, which no longer holds it), and put it back when the query is done.
    for (let query = 0; query < 50_000; query++) {
      const connection = queue.shift();
      expect(queue.remove(connection)).toBeNull();
      queue.push(connection);
    }
    expect(queue.length).toBe(8);
    // postgres.js's own held one slot per query served (50,008 here).
    expect(Watched.longest).toBeLessThan(2_100);
  });

  it('is still first in, first out, across compactions, and removes from the middle', () => {
    const queue = Queue<number>();
    for (let n = 0; n < 5_000; n++) queue.push(n);
    const taken: number[] = [];
    for (let n = 0; n < 3_000; n++) taken.push(queue.shift());
    expect(taken).toEqual(Array.from({ length: 3_000 }, (_, n) => n));
    expect(queue.remove(2_500)).toBeNull();
    expect(queue.remove(4_000)).toBe(4_000);
    expect(queue.length).toBe(1_999);
    const rest: number[] = [];
    while (queue.length > 0) rest.push(queue.shift());
    expect(rest).toEqual(Array.from({ length: 2_000 }, (_, n) => 3_000 + n).filter((n) => n !== 4_000));
    queue.push(7);
    expect(queue.shift()).toBe(7);
    expect(queue.length).toBe(0);
  });
});
