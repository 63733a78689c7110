/**
 * postgres.js 3.4.9's connection queue (its src/queue.js: open, busy, connecting, ... connections),
 * built into the compiled server in place of its own (scripts/build-server.mjs). Its own empties
 * its array only when the queue drains completely: `shift` leaves a hole, and `remove` scans from
 * index 0. A pool that always has an idle (or, under load, a busy) connection never drains, so the
 * array grew by a slot per query for the life of the process and every query scanned it: 57 µs a
 * query on a fresh pool, 151 µs after 240k (docs/benchmarks.md, "postgres.js pool queue"). This
 * one searches only the live part and drops the shifted-out prefix once it outgrows the rest.
 */
export default function Queue<T>(initial: T[] = []) {
  let xs: (T | undefined)[] = initial.slice();
  let index = 0;

  return {
    get length() {
      return xs.length - index;
    },
    remove(x: T): T | null {
      const at = xs.indexOf(x, index);
      if (at === -1) return null;
      xs.splice(at, 1);
      return x;
    },
    push(x: T): T {
      xs.push(x);
      return x;
    },
    shift(): T {
      const out = xs[index++] as T;
      if (index === xs.length) {
        index = 0;
        xs = [];
      } else {
        xs[index - 1] = undefined;
        if (index >= 1024 && index * 2 >= xs.length) {
          xs = xs.slice(index);
          index = 0;
        }
      }
      return out;
    },
  };
}
