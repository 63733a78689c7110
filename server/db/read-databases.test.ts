import { describe, expect, it } from 'vitest';
import { isConnectionError } from './connector';
import { replicaName } from './read-databases';

describe('read databases', () => {
  it('retries on the primary only for errors of the connection, not of the statement', () => {
    for (const code of [
      'CONNECTION_CLOSED',
      'CONNECTION_DESTROYED',
      'CONNECT_TIMEOUT',
      'ECONNREFUSED',
      'ECONNRESET',
      '08006',
      '57P01',
      '57P03',
    ])
      expect(isConnectionError(Object.assign(new Error(code), { code })), code).toBe(true);
    for (const code of ['57014', '42P01', '23505', 'invalid_cursor', 404])
      expect(isConnectionError(Object.assign(new Error(String(code)), { code })), String(code)).toBe(false);
    expect(isConnectionError(new Error('no code'))).toBe(false);
    // As drizzle throws a failed query: the driver's error is the cause.
    const driverError = Object.assign(new Error('terminating connection'), { code: '57P01' });
    expect(isConnectionError(new Error('Failed query: select 1', { cause: driverError }))).toBe(true);
    const statementError = Object.assign(new Error('canceling statement'), { code: '57014' });
    expect(isConnectionError(new Error('Failed query: select 1', { cause: statementError }))).toBe(false);
    expect(isConnectionError('ECONNREFUSED')).toBe(false);
  });

  it('names a replica by host, port and database, never by its credentials', () => {
    expect(replicaName('postgres://reader:s3cret@db-r1.internal/launchdex', 0)).toBe(
      'db-r1.internal:5432/launchdex',
    );
    expect(replicaName('postgresql://db-r2:5433/launchdex?sslmode=require', 1)).toBe('db-r2:5433/launchdex');
  });
});
