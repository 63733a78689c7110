/**
 * Deadlines on waits postgres.js would let run forever: a session from the pool (it has no
 * acquire timeout) and any answer from a server that may be frozen (its sockets stay open).
 */

/**
 * A read that waited past its pool-acquire deadline for a session to run on (READ_ACQUIRE_TIMEOUT_MS):
 * a connection error to every caller, so a replica's read runs again on the primary and the API
 * answers 503 with Retry-After.
 */
export class AcquireTimeoutError extends Error {
  readonly code = 'CONNECTION_ACQUIRE_TIMEOUT';
}

/** What postgres.js 3.4.9's query shows of its progress (src/query.js, src/connection.js). */
interface DriverQuery {
  /** Set once the query is the one its session is running (and kept after it ends). */
  active: boolean;
  /** Set once the query is written to a session (pipelined behind others, maybe); null while queued in the pool. */
  state: unknown;
  reject(error: Error): void;
  cancel(): unknown;
}

/**
 * A pool-acquire deadline for postgres.js, which has none: a query waits for a session in the
 * pool's queue, or pipelined behind another session's statements, for as long as they take. A
 * query not yet running `timeoutMs` after it was made fails with {@link AcquireTimeoutError}; one
 * still in the pool's queue is also taken out of it (one written to a session runs when its turn
 * comes, its answer dropped). One timer sweeps every query made since the last sweep.
 * @example const watch = acquireDeadline(5_000); const query = watch(client.unsafe(text, values));
 */
export function acquireDeadline(timeoutMs: number): <Query>(query: Query) => Query {
  let waiting: { query: DriverQuery; at: number }[] = [];
  let scheduled = false;
  const schedule = () => {
    scheduled = true;
    setTimeout(sweep, Math.max(25, timeoutMs / 4)).unref();
  };
  const sweep = () => {
    const now = performance.now();
    const still: typeof waiting = [];
    for (const entry of waiting) {
      if (entry.query.active) continue;
      if (now - entry.at < timeoutMs) {
        still.push(entry);
        continue;
      }
      entry.query.reject(new AcquireTimeoutError(`no database session within ${timeoutMs} ms`));
      if (!entry.query.state) entry.query.cancel();
    }
    waiting = still;
    scheduled = false;
    if (waiting.length > 0) schedule();
  };
  return (query) => {
    waiting.push({ query: query as DriverQuery, at: performance.now() });
    if (!scheduled) schedule();
    return query;
  };
}

/**
 * `work`'s outcome, or `late()` as its rejection once `deadlineMs` passed: a wait on a server that
 * may be frozen ends on our timer (`work` itself runs on; its outcome is then dropped).
 * @example const [row] = await withinDeadline(client`select 1`, 1_000, () => new Error('no answer'));
 */
export function withinDeadline<T>(work: Promise<T>, deadlineMs: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), deadlineMs);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
