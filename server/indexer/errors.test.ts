import { describe, expect, it } from 'vitest';
import { asIndexerError, IndexerError, StepFailedError, WriteConflictError } from './errors';
import { ReorgTooDeepError } from './reorg/find-ancestor';
import { RpcError, RpcRangeError, RpcResponseTooLargeError } from './rpc/client';
import { BlockUnavailableError, RangeInconsistentError } from './sync/headers';

describe('indexer errors', () => {
  it('all derive from IndexerError, and each says whether and when the loop goes on', () => {
    const cases: [IndexerError, string][] = [
      [new RpcError('node down'), 'later'],
      [new RpcRangeError('block range too large'), 'now'],
      [new RpcResponseTooLargeError(1024, 4096), 'now'],
      [new RangeInconsistentError('block 5 changed'), 'now'],
      [new BlockUnavailableError('block 5 is not available'), 'later'],
      [new WriteConflictError('balances changed under the indexer'), 'later'],
      [new ReorgTooDeepError('too deep'), 'never'],
    ];
    for (const [error, retry] of cases) {
      expect(error).toBeInstanceOf(IndexerError);
      expect(error.retry, error.name).toBe(retry);
      expect(error.retryable, error.name).toBe(retry !== 'never');
    }
  });

  it('wraps what the indexer did not raise, keeping it as the cause and its message', () => {
    const original = new TypeError('x is undefined');
    const wrapped = asIndexerError(original);
    expect(wrapped).toBeInstanceOf(StepFailedError);
    expect(wrapped.message).toBe('x is undefined');
    expect(wrapped.cause).toBe(original);
    expect(wrapped.retry).toBe('later');
    expect(asIndexerError('a string').message).toBe('a string');
    const own = new ReorgTooDeepError('too deep');
    expect(asIndexerError(own)).toBe(own);
  });
});
