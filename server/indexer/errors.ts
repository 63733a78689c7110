/**
 * How the indexer may go on after a failure, read by the loop (indexer.ts) and nowhere else:
 * - `now`: the step already adapted (a smaller range) or the condition is a moment's (the chain
 *   moved while a range was read); the next step starts at once.
 * - `later`: the node or the database failed; the next step waits with backoff.
 * - `never`: going on could corrupt the index; an operator must act.
 */
export type Retry = 'now' | 'later' | 'never';

/**
 * The base of every failure the indexer raises. Its `retry` (and the `retryable` flag read from
 * it) is the one place a retry decision is made: callers read it instead of matching classes or
 * names.
 */
export abstract class IndexerError extends Error {
  abstract readonly retry: Retry;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
  get retryable(): boolean {
    return this.retry !== 'never';
  }
}

/**
 * A failure the indexer did not raise itself (a database error, a bug): retried with backoff, as
 * the loop always did; the original is its `cause` and lends it its message.
 */
export class StepFailedError extends IndexerError {
  override name = 'StepFailedError';
  readonly retry = 'later';
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original), { cause: original });
  }
}

/** `error` as an IndexerError: itself, or wrapped (StepFailedError). */
export function asIndexerError(error: unknown): IndexerError {
  return error instanceof IndexerError ? error : new StepFailedError(error);
}

/** The stored rows are not what the indexer folded from: the next step reads them again. */
export class WriteConflictError extends IndexerError {
  override name = 'WriteConflictError';
  readonly retry = 'later';
}

/**
 * A rebuilt index was swapped in under the indexer (server/indexer/rebuild/): what it folded
 * from the old one is void. The next step reads the new index's checkpoint, at once.
 */
export class IndexSwappedError extends IndexerError {
  override name = 'IndexSwappedError';
  readonly retry = 'now';
}
