/**
 * The web process's read databases: the primary and the replicas of DATABASE_READ_URLS, with the
 * replica set that picks one per read (server/db/replicas.ts). Writes and read-after-write paths
 * never come here: they use the primary's handle (the process object's `database`).
 */
import type { Config } from '../config';
import { type Database, openDatabase } from './client';
import { isConnectionError } from './connector';
import { createReadVersion, type ReadVersion } from './read-version';
import { createReplicaSet, type ReadRoute, type ReplicaHealth, readReplayPosition } from './replicas';

export interface ReadDatabases {
  /** Whether any replica is configured (false: every read is the primary's, as before). */
  replicated: boolean;
  /**
   * Runs one read on the database routed for a client that has seen `minBlock`. A replica that
   * fails it on the connection is taken out and the read runs once more on the primary.
   */
  read<T>(minBlock: number | undefined, work: (route: ReadRoute<Database>) => Promise<T>): Promise<T>;
  /** The read-model version of the named database (`primary` or a replica's name). */
  version(name: string): ReadVersion;
  /** The last polled block of the named database (null: not polled yet, or no replicas). */
  polledBlock(name: string): number | null;
  health(): ReplicaHealth[];
  /** Reads run per database since start, retries on the primary included. */
  reads(): Record<string, number>;
  /** The replicas' databases, in DATABASE_READ_URLS order (for what start-up may read from them). */
  replicaDatabases(): Database[];
  close(): Promise<void>;
}

/** A replica's name in readiness, metrics and logs: its host, port and database, never credentials. */
export function replicaName(url: string, index: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return `replica-${index + 1}`;
  }
}

/**
 * Opens the replicas beside `primary` and polls their positions (the first poll is awaited, so
 * the first reads already know which replicas qualify). With no replicas every read is the
 * primary's and nothing is polled.
 */
export async function openReadDatabases(
  config: Config,
  primary: Database,
  onChange?: (health: ReplicaHealth) => void,
): Promise<ReadDatabases> {
  const { urls, maxLagBlocks, pollMs, pollDeadlineMs } = config.replicas;
  const handles = await Promise.all(
    urls.map((url) =>
      openDatabase(
        // The primary's deadlines, on each replica's URL.
        config.database.kind === 'postgres' ? { ...config.database, url } : { kind: 'postgres', url },
        {
          prepareStatements: true,
          statementTimeoutMs: config.readStatementTimeoutMs,
          acquireTimeoutMs: config.readAcquireTimeoutMs,
          applicationName: 'launchdex-read',
        },
      ),
    ),
  );
  const replicas = handles.map((handle, index) => ({
    name: replicaName(urls[index] ?? '', index),
    db: handle.db,
    connector: handle.connector,
  }));
  const versions = new Map<string, ReadVersion>([
    // A replica's version read is one row: one that takes as long as an overdue poll is not
    // coming, and its readers are better served by the primary (which keeps its acquire deadline).
    ['primary', createReadVersion(primary)],
    ...replicas.map(({ name, db }) => [name, createReadVersion(db, pollDeadlineMs)] as const),
  ]);
  const counts: Record<string, number> = { primary: 0 };
  for (const { name } of replicas) counts[name] = 0;
  const set =
    replicas.length === 0
      ? undefined
      : createReplicaSet({
          primary,
          replicas,
          readPosition: readReplayPosition,
          maxLagBlocks,
          pollMs,
          pollDeadlineMs,
          // A replica that answers nothing holds its reads' sessions open: cut them, so the reads
          // fail as connection errors and run again on the primary.
          onOverdue: (name) =>
            replicas
              .find((replica) => replica.name === name)
              ?.connector?.cut(`poll overdue: ${name} gave no answer within ${pollDeadlineMs} ms`),
          ...(onChange ? { onChange } : {}),
        });
  await set?.start();
  const primaryRoute: ReadRoute<Database> = { name: 'primary', db: primary };
  const run = <T>(route: ReadRoute<Database>, work: (route: ReadRoute<Database>) => Promise<T>) => {
    counts[route.name] = (counts[route.name] ?? 0) + 1;
    return work(route);
  };
  return {
    replicated: set !== undefined,
    read(minBlock, work) {
      const route = set ? set.route(minBlock) : primaryRoute;
      // The primary's read is the work's own promise: no async frame around every read.
      if (route.name === 'primary') return run(route, work);
      return run(route, work).catch((error: unknown) => {
        if (!isConnectionError(error)) throw error;
        set?.failed(route.name, error);
        return run(primaryRoute, work);
      });
    },
    version: (name) => versions.get(name) ?? (versions.get('primary') as ReadVersion),
    polledBlock(name) {
      if (!set) return null;
      if (name === 'primary') return set.primaryPosition()?.block ?? null;
      return set.health().find((replica) => replica.name === name)?.position?.block ?? null;
    },
    health: () => set?.health() ?? [],
    reads: () => ({ ...counts }),
    replicaDatabases: () => replicas.map(({ db }) => db),
    async close() {
      set?.stop();
      await Promise.all(handles.map((handle) => handle.close().catch(() => {})));
    },
  };
}
