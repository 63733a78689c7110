/**
 * PostgreSQL URLs as libpq accepts them, one host or several
 * (`postgres://u:p@h1:5432,h2:5433/db?target_session_attrs=read-write`): read once by the config,
 * used by the connection layer (server/db/connector.ts) to choose a host.
 */

/** libpq's `target_session_attrs` values that a writer's URL may ask for. */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

export interface DatabaseHost {
  host: string;
  port: number;
}

export interface ParsedDatabaseUrl {
  hosts: DatabaseHost[];
  target: TargetSessionAttrs;
  /** The URL postgres.js is given: one host (the socket function picks the real one), no target. */
  driverUrl: string;
}

/**
 * The database deadlines unless configured otherwise (DATABASE_CONNECT_TIMEOUT_MS,
 * DATABASE_HEARTBEAT_MS, DATABASE_HEARTBEAT_DEADLINE_MS): the config's defaults, and the
 * connection layer's for a pool opened without them (scripts, tests).
 */
export const DATABASE_DEADLINE_DEFAULTS = {
  connectTimeoutMs: 2_000,
  heartbeatMs: 1_000,
  heartbeatDeadlineMs: 2_000,
};

const supportedTargets: readonly string[] = ['any', 'read-write', 'primary'];

/**
 * Splits a PostgreSQL URL that may name several hosts, as libpq accepts it
 * (`postgres://u:p@h1:5432,h2:5433/db?target_session_attrs=read-write`).
 * @example parseDatabaseUrl('postgres://a:5432,b:5433/db').hosts // [{host:'a',port:5432},{host:'b',port:5433}]
 * @throws Error with a message fit for the config's problem list
 */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const match = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/.exec(url);
  if (!match) throw new Error('must be a URL with scheme postgres: or postgresql:');
  const [, scheme, userinfo = '', hostList = '', rest = ''] = match;
  const hosts = (hostList === '' ? ['localhost'] : hostList.split(',')).map(parseHost);
  // The rest is the path and query; `new URL` validates it on a one-host stand-in.
  const single = `${scheme}${userinfo}${formatHost(hosts[0] as DatabaseHost)}${rest}`;
  let parsed: URL;
  try {
    parsed = new URL(single);
  } catch {
    throw new Error('must be a URL with scheme postgres: or postgresql:');
  }
  const target = parsed.searchParams.get('target_session_attrs') ?? 'any';
  if (!supportedTargets.includes(target))
    throw new Error(
      `target_session_attrs=${target} is not supported here: the primary's URL may ask for any, read-write or primary (replicas go in DATABASE_READ_URLS)`,
    );
  parsed.searchParams.delete('target_session_attrs');
  return { hosts, target: target as TargetSessionAttrs, driverUrl: parsed.toString() };
}

function parseHost(text: string): DatabaseHost {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const [host, port] = bracketed
    ? [bracketed[1], bracketed[2]]
    : [text.split(':')[0], text.includes(':') ? text.split(':')[1] : undefined];
  const number = port === undefined || port === '' ? 5432 : Number(port);
  if (!host || !Number.isInteger(number) || number < 1 || number > 65535)
    throw new Error(`names a host that is not host[:port]: "${text}"`);
  return { host, port: number };
}

/** `host:port`, an IPv6 address in brackets. */
export function formatHost({ host, port }: DatabaseHost): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
