import { mkdirSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { Sql } from 'postgres';
import type { DatabaseConfig } from '../config';
import { type Connector, openPostgres } from './connector';
import { acquireDeadline } from './deadlines';
import * as schema from './schema';

export type Schema = typeof schema;

/** What every query is written against, whichever driver sits underneath. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export interface DatabaseHandle {
  db: Database;
  driver: DatabaseConfig['kind'];
  config: DatabaseConfig;
  /** Runs raw SQL text (several statements allowed); for migrations locks and test set-up. */
  exec(sqlText: string): Promise<void>;
  close(): Promise<void>;
  /** The connection layer under a postgres.js pool (server/db/connector.ts); absent on PGlite. */
  connector?: Connector;
}

export interface OpenDatabaseOptions {
  /** Pool size for postgres.js. */
  max?: number;
  /** Application name shown in pg_stat_activity. */
  applicationName?: string;
  /**
   * Run drizzle's query-builder statements as named prepared statements (postgres.js caches one
   * per distinct SQL text and connection), so PostgreSQL parses and plans each read shape once
   * per connection instead of once per request. For the web process, whose statements come from
   * a fixed set of shapes; not for bulk writers, whose statement text varies with the batch.
   * Statements inside transactions stay unnamed either way.
   */
  prepareStatements?: boolean;
  /**
   * PostgreSQL's statement_timeout for every session of the pool, in ms (0 or unset: none). A
   * cancelled statement fails with SQLSTATE 57014. PGlite runs one statement at a time in this
   * process and has no such timer.
   */
  statementTimeoutMs?: number;
  /**
   * A read not running on a session this many ms after it was made fails as a connection error
   * (server/db/connector.ts, `acquireDeadline`; 0 or unset: it waits). Queries outside
   * transactions only.
   */
  acquireTimeoutMs?: number;
  /**
   * Session settings of every connection of a postgres.js pool (a rebuild's search path, its
   * commits without waiting for the disk). PGlite has one session: set them on it.
   */
  settings?: Record<string, string>;
}

/**
 * The opened driver: a postgres.js pool or an embedded PGlite, without any drizzle instance
 * around it. Migrations run over a drizzle of their own (`wrapDriver`) before the
 * process's is made.
 */
export type DatabaseDriver = (
  | {
      kind: 'postgres';
      /** The client drizzle talks to (with `prepareStatements`, every statement named). */
      queryClient: Sql;
      connector: Connector;
    }
  | { kind: 'pglite'; queryClient: PGlite }
) & {
  exec(sqlText: string): Promise<void>;
  close(): Promise<void>;
};

/** Opens the configured driver: postgres.js for a URL, embedded PGlite for a directory. */
export async function openDriver(
  config: DatabaseConfig,
  options: OpenDatabaseOptions = {},
): Promise<DatabaseDriver> {
  if (config.kind === 'postgres') {
    const { client, connector } = openPostgres(config, {
      max: options.max ?? 10,
      onnotice: () => {},
      connection: {
        application_name: options.applicationName ?? 'launchdex',
        ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
        ...options.settings,
      },
    });
    // A documented option of postgres.js's `unsafe` that its types leave out.
    const noSimpleProtocol = { simple: false } as object;
    // drizzle asks postgres.js for unnamed statements unless a query is given a name; this
    // flips that default for the whole pool (see `prepareStatements`). `simple: false` too:
    // postgres.js sends a statement without parameters (a first page: its limit is in the text)
    // over the simple protocol, which names nothing, so PostgreSQL parsed and planned the whole
    // statement, and the client sent all of its text, on every request.
    // One function and one options object for every read (the web process makes one per request).
    const prepared = { ...noSimpleProtocol, prepare: true };
    const watch = options.acquireTimeoutMs ? acquireDeadline(options.acquireTimeoutMs) : undefined;
    const unsafe: Sql['unsafe'] = options.prepareStatements
      ? (text, parameters, queryOptions) =>
          client.unsafe(
            text,
            parameters as never,
            queryOptions ? { ...noSimpleProtocol, ...queryOptions, prepare: true } : prepared,
          )
      : client.unsafe;
    const watchedUnsafe: Sql['unsafe'] = watch
      ? (text, parameters, queryOptions) => watch(unsafe(text, parameters, queryOptions))
      : unsafe;
    const queryClient =
      watchedUnsafe === client.unsafe
        ? client
        : new Proxy(client, {
            get(target, property, receiver) {
              if (property !== 'unsafe') return Reflect.get(target, property, receiver);
              return watchedUnsafe;
            },
          });
    return {
      kind: 'postgres',
      queryClient,
      connector,
      exec: async (sqlText) => {
        await client.unsafe(sqlText);
      },
      close: async () => {
        await connector.close();
        await client.end({ timeout: 5 });
      },
    };
  }
  mkdirSync(config.dir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const client = await PGlite.create(config.dir);
  return {
    kind: 'pglite',
    queryClient: client,
    exec: async (sqlText) => {
      await client.exec(sqlText);
    },
    close: () => client.close(),
  };
}

/** A drizzle over an opened driver (see DatabaseDriver). */
export async function wrapDriver(driver: DatabaseDriver, config: DatabaseConfig): Promise<DatabaseHandle> {
  const db =
    driver.kind === 'postgres'
      ? (await import('drizzle-orm/postgres-js')).drizzle({ client: driver.queryClient, schema })
      : (await import('drizzle-orm/pglite')).drizzle({ client: driver.queryClient, schema });
  return {
    db: db as unknown as Database,
    driver: driver.kind,
    config,
    exec: driver.exec,
    close: driver.close,
    ...(driver.kind === 'postgres' ? { connector: driver.connector } : {}),
  };
}

/**
 * Opens the configured database: postgres.js for a URL, embedded PGlite for a directory.
 * @example const handle = await openDatabase({ kind: 'pglite', dir: '.data/pglite' });
 */
export async function openDatabase(
  config: DatabaseConfig,
  options: OpenDatabaseOptions = {},
): Promise<DatabaseHandle> {
  return wrapDriver(await openDriver(config, options), config);
}

/**
 * Runs a raw query and returns its rows. postgres.js answers with an array, PGlite with
 * `{ rows }`; callers should not have to care.
 */
export async function selectRows<Row extends Record<string, unknown>>(
  db: Database,
  query: SQL,
): Promise<Row[]> {
  const result: unknown = await db.execute(query);
  if (Array.isArray(result)) return result as Row[];
  return (result as { rows: Row[] }).rows;
}
