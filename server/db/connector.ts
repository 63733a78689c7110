/**
 * How postgres.js reaches a PostgreSQL server: the socket function of every pool, the host a
 * session goes to when the URL names several, and the cut that ends every session of a server
 * judged frozen.
 *
 * postgres.js 3.4.9 has three defects on these paths (docs/decisions.md, "Database connections"):
 * a socket function that rejects leaves its connection with no socket for good (so each refused
 * connect lost one of the pool's sessions), a URL naming several hosts retries them forever while
 * a query waits (no connect ever fails while another host is left to try), and its reconnect
 * backoff grows to 20 s. So the socket function here never rejects: it hands over a connected
 * socket, or one that fails at its first write as a refused connect does; the pool sees a single
 * host, this module chooses which; and the backoff is capped.
 */
import { createConnection, Socket } from 'node:net';
import postgres from 'postgres';
import type { DatabaseConfig } from '../config';
import {
  DATABASE_DEADLINE_DEFAULTS,
  type DatabaseHost,
  formatHost,
  parseDatabaseUrl,
  type TargetSessionAttrs,
} from '../config/database-url';
import { withinDeadline } from './deadlines';

type PostgresDatabaseConfig = Omit<Extract<DatabaseConfig, { kind: 'postgres' }>, 'kind'>;

export interface ConnectorOptions {
  /** The URL of one host, with the credentials, database and settings every host shares. */
  driverUrl: string;
  hosts: readonly DatabaseHost[];
  target: TargetSessionAttrs;
  /** A connect (TCP, then PostgreSQL's start-up) and a probe of a host end after this. */
  connectTimeoutMs: number;
  /**
   * While the pool has sessions, `select 1` every `intervalMs` on a session of its own (0: never).
   * One unanswered after `deadlineMs` means the server is frozen (a partition, a stuck disk, a
   * paused VM: sockets open, nothing answers, and its own statement_timeout cannot fire): every
   * session is cut, so their queries fail now as connection errors, and new sessions fail at once
   * until a heartbeat is answered again.
   */
  heartbeat: { intervalMs: number; deadlineMs: number };
}

/** What postgres.js passes to the socket function (the parts used here). */
interface DriverSocketOptions {
  path?: string | false;
}

export interface Connector {
  /** postgres.js's `socket` option: never rejects (see the module's comment). */
  socket(options: DriverSocketOptions): Promise<Socket>;
  /**
   * Ends every open session to this server now (their queries fail as connection errors) and
   * fails new ones at once until a heartbeat is answered: reads that were routed here before the
   * verdict then go elsewhere in milliseconds instead of each waiting out a connect.
   */
  cut(reason: string): void;
  /** The host sessions go to now (null: none located yet, or none qualifies). */
  located(): DatabaseHost | null;
  /** Open sockets, for tests and metrics. */
  openSockets(): number;
  /** Why the server is judged frozen (sessions fail at once meanwhile); null while it answers. */
  frozen(): string | null;
  /** Stops the heartbeat and ends its session. */
  close(): Promise<void>;
}

/** The error a cut or a refused location hands to postgres.js: a connection error to every caller. */
export class ConnectionCutError extends Error {
  readonly code = 'CONNECTION_CUT';
}

/**
 * Errors of the connection rather than of the statement: the server went away, refused or cut
 * the session, or is a standby shutting down or starting up (SQLSTATE class 08, 57P01-57P03).
 */
export function isConnectionError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  // drizzle wraps a failed query (DrizzleQueryError) with the driver's error as its cause.
  if (typeof code !== 'string') return depth < 3 && isConnectionError(cause, depth + 1);
  return (
    /^(CONNECTION_|CONNECT_TIMEOUT|ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND)/.test(code) ||
    code.startsWith('08') ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03'
  );
}

/**
 * postgres.js's reconnect delay, in seconds, after `retries` failed connects in a row: a few tens of
 * ms growing to half a second, so a server back from a restart has sessions again within ~0.5 s
 * (postgres.js's own grows to 20 s).
 */
export function reconnectBackoff(retries: number): number {
  return Math.min(0.025 * 2 ** retries, 0.5) * (0.5 + Math.random() / 2);
}

/**
 * The connection layer under one postgres.js pool (see the module's comment).
 * @example const connector = createConnector({ hosts: [{ host: '127.0.0.1', port: 5432 }], target: 'any', connectTimeoutMs: 2000 });
 */
export function createConnector(options: ConnectorOptions): Connector {
  const sockets = new Set<Socket>();
  const direct = options.hosts.length === 1 && options.target === 'any';
  let current: DatabaseHost | null = direct ? (options.hosts[0] as DatabaseHost) : null;
  let locating: Promise<DatabaseHost | null> | undefined;
  let frozen: string | null = null;
  const cut = (reason: string) => {
    frozen ??= reason;
    const error = new ConnectionCutError(reason);
    // On the next turn, after what postgres.js has queued to write: it writes a session's
    // start-up message (and small queries) on a setImmediate, and a socket closed before that
    // write leaves the bytes in its buffer, to be sent ahead of the next session's own start-up.
    // The server then reads that second start-up as the head of a message some 22 kB long and
    // waits for the rest: a session that looks open and never answers (docs/decisions.md).
    const doomed = [...sockets];
    setImmediate(() => {
      for (const socket of doomed) socket.destroy(error);
    });
  };
  const locate = () => {
    locating ??= locateHost(options).finally(() => {
      locating = undefined;
    });
    return locating;
  };

  const heartbeat = startHeartbeat(options, {
    // A multi-host pool whose host froze finds a host again (a standby may have been promoted).
    target: async () => {
      current ??= await locate();
      return current;
    },
    busy: () => sockets.size > 0 || frozen !== null,
    // Answered, or refused at once: either way not frozen (a stopped server's connects fail fast).
    responsive: () => {
      frozen = null;
    },
    overdue: (host) => {
      frozen = `${formatHost(host)} gave no answer within ${options.heartbeat.deadlineMs} ms`;
      if (!direct && current === host) current = null;
      cut(frozen);
    },
  });

  /**
   * A connected socket, or one that fails like it: postgres.js gets the socket only once it is
   * connected, so it never writes to a socket that then fails to connect (it would keep the
   * unsent start-up message and send it twice on the next socket: a session that never starts).
   */
  const open = (target: DatabaseHost | string) =>
    new Promise<Socket>((resolve) => {
      // Nagle off: a COPY ends with a small CopyDone written after its data, which otherwise
      // waits for the server's delayed ACK (~40 ms per COPY however few its rows).
      const socket =
        typeof target === 'string'
          ? createConnection({ path: target, noDelay: true })
          : createConnection({ host: target.host, port: target.port, noDelay: true });
      const timer = setTimeout(() => {
        const error = new Error(`connect timeout after ${options.connectTimeoutMs} ms`);
        socket.destroy(Object.assign(error, { code: 'CONNECT_TIMEOUT' }));
      }, options.connectTimeoutMs);
      socket.once('error', (error) => {
        clearTimeout(timer);
        // The next session finds the host again: a failover may have moved the primary.
        if (!direct && current === target) current = null;
        resolve(failedSocket(error));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        // postgres.js listens from the next microtask; no socket event comes before that.
        socket.removeAllListeners('error');
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        resolve(socket);
      });
    });

  return {
    async socket(driverOptions) {
      if (frozen) return failedSocket(new ConnectionCutError(`database frozen: ${frozen}`));
      if (driverOptions.path) return open(driverOptions.path);
      if (direct) return open(current as DatabaseHost);
      current ??= await locate();
      if (current) return open(current);
      return failedSocket(
        new ConnectionCutError(
          options.target === 'any'
            ? 'no database host answered'
            : `no database host is a ${options.target} server (${options.hosts.map(formatHost).join(', ')})`,
        ),
      );
    },
    cut,
    located: () => current,
    openSockets: () => sockets.size,
    frozen: () => frozen,
    close: heartbeat.close,
  };
}

/**
 * The heartbeat of a connector (see ConnectorOptions.heartbeat), on a postgres.js session of its
 * own to the host the pool uses. Only a deadline passed counts as frozen: a refused heartbeat is a
 * server that is down, whose sessions fail at once by themselves.
 */
function startHeartbeat(
  options: ConnectorOptions,
  pool: {
    target: () => Promise<DatabaseHost | null>;
    busy: () => boolean;
    responsive: () => void;
    overdue: (host: DatabaseHost) => void;
  },
): { close(): Promise<void> } {
  const { intervalMs, deadlineMs } = options.heartbeat;
  let session: { host: DatabaseHost; client: postgres.Sql } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const drop = () => {
    void session?.client.end({ timeout: 0 }).catch(() => {});
    session = undefined;
  };
  const beat = async (): Promise<boolean> => {
    if (!pool.busy()) return true;
    const host = await pool.target();
    if (!host) return false;
    if (session?.host !== host) {
      drop();
      session = { host, client: probeClient(host, options, 'launchdex-heartbeat') };
    }
    const answer = session.client`select 1`.then(
      () => 'answered' as const,
      (error: { code?: unknown }) => (error.code === 'CONNECT_TIMEOUT' ? 'overdue' : 'failed'),
    );
    let deadline: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      deadline = setTimeout(() => resolve('late'), deadlineMs);
    });
    let outcome = await Promise.race([answer, late]);
    clearTimeout(deadline);
    // The deadline's timer runs before the I/O of the same turn: a busy event loop may have an
    // answer waiting behind it. One more turn lets it in.
    if (outcome === 'late') outcome = await Promise.race([answer, nextTurn().then(() => 'late' as const)]);
    if (outcome === 'late' || outcome === 'overdue') {
      drop();
      pool.overdue(host);
      return false;
    }
    pool.responsive();
    return true;
  };
  const schedule = (ms: number) => {
    if (closed) return;
    timer = setTimeout(() => {
      // While the server is judged frozen, beats come more often: its return is noticed sooner.
      void beat()
        .catch(() => false)
        .then((healthy) => schedule(healthy ? intervalMs : Math.min(intervalMs, 250)));
    }, ms);
    timer.unref();
  };
  if (intervalMs > 0) schedule(intervalMs);
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      drop();
    },
  };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A one-session postgres.js client on `host`, with the URL's credentials and database. */
function probeClient(host: DatabaseHost, options: ConnectorOptions, applicationName: string): postgres.Sql {
  const url = new URL(options.driverUrl);
  url.hostname = host.host.includes(':') ? `[${host.host}]` : host.host;
  url.port = String(host.port);
  return postgres(url.toString(), {
    max: 1,
    fetch_types: false,
    connect_timeout: options.connectTimeoutMs / 1000,
    backoff: reconnectBackoff,
    onnotice: () => {},
    connection: { application_name: applicationName },
  });
}

/**
 * A socket that fails as a refused connect does: at postgres.js's first write (its start-up
 * message), once postgres.js has finished that write's bookkeeping and listens to the socket.
 */
function failedSocket(error: Error): Socket {
  const socket = new Socket();
  socket.write = () => {
    setImmediate(() => socket.destroy(error));
    return true;
  };
  return socket;
}

/**
 * The first of `hosts`, in their order, that answers and qualifies for the target: every host
 * probed at once on a session of its own, each bounded by the connect timeout.
 */
async function locateHost(options: ConnectorOptions): Promise<DatabaseHost | null> {
  const probes = options.hosts.map((host) => probeHost(host, options));
  for (const [index, probe] of probes.entries()) if (await probe) return options.hosts[index] ?? null;
  return null;
}

async function probeHost(host: DatabaseHost, options: ConnectorOptions): Promise<boolean> {
  const client = probeClient(host, options, 'launchdex-locate');
  try {
    const answer = client<{ standby: boolean; read_only: string }[]>`
      select pg_is_in_recovery() as standby, current_setting('default_transaction_read_only') as read_only`;
    const [row] = await withinDeadline(answer, options.connectTimeoutMs, () => new Error('probe deadline'));
    if (!row) return false;
    if (options.target === 'primary') return !row.standby;
    if (options.target === 'read-write') return !row.standby && row.read_only === 'off';
    return true;
  } catch {
    return false;
  } finally {
    void client.end({ timeout: 0 }).catch(() => {});
  }
}

/**
 * A postgres.js pool on `url` (one host or several) over a connector of its own.
 * @example const { client } = openPostgres({ url: 'postgres://postgres@127.0.0.1/launchdex' }, { max: 4 });
 */
export function openPostgres(
  database: PostgresDatabaseConfig,
  options: postgres.Options<Record<string, postgres.PostgresType>>,
): { client: postgres.Sql; connector: Connector } {
  const { hosts, target, driverUrl } = parseDatabaseUrl(database.url);
  const connectTimeoutMs = database.connectTimeoutMs ?? DATABASE_DEADLINE_DEFAULTS.connectTimeoutMs;
  const connector = createConnector({
    driverUrl,
    hosts,
    target,
    connectTimeoutMs,
    heartbeat: {
      intervalMs: database.heartbeatMs ?? DATABASE_DEADLINE_DEFAULTS.heartbeatMs,
      deadlineMs: database.heartbeatDeadlineMs ?? DATABASE_DEADLINE_DEFAULTS.heartbeatDeadlineMs,
    },
  });
  const client = postgres(driverUrl, {
    ...options,
    connect_timeout: connectTimeoutMs / 1000,
    backoff: reconnectBackoff,
    // postgres.js fetches the array types on every new session, and leaves that query's failure
    // unhandled when the session dies during it (a restart): an unhandled rejection ends a Node
    // process. drizzle parses its array columns from text itself; raw reads of arrays take both.
    fetch_types: false,
    // A documented option of postgres.js (`socket`) that its types leave out.
    ...({ socket: connector.socket } as object),
  });
  return { client, connector };
}
