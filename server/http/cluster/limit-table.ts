import { createMemoryBuckets } from '../rate-limit';
import type { AcquireAnswer, LimitAnswers, LimitRequests, TakeAnswer } from './protocol';

/**
 * The per-client counts the primary keeps for all of its workers: rate buckets and capped slots
 * (uploads, streams, connections), each slot held in the name of a worker.
 */
export interface LimitTable {
  /** Answers one worker's batch, in order; slots it acquires are held in that worker's name. */
  answer(holder: number, requests: LimitRequests): LimitAnswers;
  /** Takes one of `max` slots of `key` for `holder`, or refuses. */
  acquire(holder: number, key: string, max: number): boolean;
  /** Gives back one slot of `key` that `holder` holds (nothing when it holds none). */
  release(holder: number, key: string): void;
  /** Gives back every slot of a holder (a worker that exited); returns how many. */
  releaseAll(holder: number): number;
  /** Slots held for `key` across holders. */
  held(key: string): number;
}

/**
 * @dev Invariant: for every key, `totals` equals the sum of the holders' counts, and no count is
 * kept at zero, so a worker's death can always return exactly what it held.
 * @example const table = createLimitTable(); table.acquire(1, 'streams:203.0.113.9', 8);
 */
export function createLimitTable(now: () => number = Date.now): LimitTable {
  const buckets = createMemoryBuckets(now);
  const totals = new Map<string, number>();
  const holders = new Map<number, Map<string, number>>();

  const decrement = (map: Map<string, number>, key: string, by: number) => {
    const left = (map.get(key) ?? 0) - by;
    if (left <= 0) map.delete(key);
    else map.set(key, left);
  };

  const acquire = (holder: number, key: string, max: number) => {
    const total = totals.get(key) ?? 0;
    if (total >= max) return false;
    totals.set(key, total + 1);
    let held = holders.get(holder);
    if (!held) {
      held = new Map();
      holders.set(holder, held);
    }
    held.set(key, (held.get(key) ?? 0) + 1);
    return true;
  };

  const release = (holder: number, key: string) => {
    const held = holders.get(holder);
    if (!held?.has(key)) return;
    decrement(held, key, 1);
    decrement(totals, key, 1);
    if (held.size === 0) holders.delete(holder);
  };

  return {
    acquire,
    release,
    answer(holder, requests) {
      // Releases first: a slot given back in the same turn as another is asked for is free.
      for (const key of requests.releases) release(holder, key);
      const takes: TakeAnswer[] = requests.takes.map(([id, key, perMinute, burst, cost, charge]) => {
        const decision = buckets.take(key, { perMinute, burst }, cost, charge === 1 ? 'charge' : 'fit');
        return [id, decision.allowed ? 1 : 0, decision.remaining, decision.resetMs, decision.retryAfterMs];
      });
      const acquires: AcquireAnswer[] = requests.acquires.map(([id, key, max]) => [
        id,
        acquire(holder, key, max) ? 1 : 0,
      ]);
      return { type: 'launchdex:limits', takes, acquires };
    },
    releaseAll(holder) {
      const held = holders.get(holder);
      if (!held) return 0;
      let count = 0;
      for (const [key, n] of held) {
        decrement(totals, key, n);
        count += n;
      }
      holders.delete(holder);
      return count;
    },
    held: (key) => totals.get(key) ?? 0,
  };
}
