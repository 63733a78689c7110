import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from './database-url';

describe('parseDatabaseUrl', () => {
  it('reads every host of a libpq multi-host URL, in order, 5432 where no port is given', () => {
    expect(
      parseDatabaseUrl(
        'postgres://app:pw@db-a:5433,db-b,[::1]:6000/launchdex?target_session_attrs=read-write',
      ),
    ).toEqual({
      hosts: [
        { host: 'db-a', port: 5433 },
        { host: 'db-b', port: 5432 },
        { host: '::1', port: 6000 },
      ],
      target: 'read-write',
      // postgres.js is given one host and no target: the connector chooses the host.
      driverUrl: 'postgres://app:pw@db-a:5433/launchdex',
    });
  });

  it('keeps the other query parameters and defaults the target to any', () => {
    expect(parseDatabaseUrl('postgresql://db/launchdex?sslmode=require&application_name=x')).toEqual({
      hosts: [{ host: 'db', port: 5432 }],
      target: 'any',
      driverUrl: 'postgresql://db:5432/launchdex?sslmode=require&application_name=x',
    });
  });

  it('refuses other schemes, malformed hosts and targets a writer cannot use', () => {
    expect(() => parseDatabaseUrl('http://db/launchdex')).toThrow('must be a URL with scheme postgres:');
    expect(() => parseDatabaseUrl('postgres://db:99999/launchdex')).toThrow('not host[:port]: "db:99999"');
    expect(() => parseDatabaseUrl('postgres://db-a,,db-b/launchdex')).toThrow('not host[:port]: ""');
    for (const target of ['read-only', 'standby', 'prefer-standby', 'bogus'])
      expect(() => parseDatabaseUrl(`postgres://db/x?target_session_attrs=${target}`)).toThrow(
        `target_session_attrs=${target} is not supported here`,
      );
  });
});
