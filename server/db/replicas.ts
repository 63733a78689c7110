/**
 * Read replicas on PostgreSQL's own streaming replication: which database answers a read.
 *
 * Each replica's position (the `indexed_through_block` and read-model version it has replayed)
 * is polled in the background, so choosing a database costs a few comparisons and no round trip.
 * A read goes to a healthy replica whose position is at least what the client has already seen
 * (its `min_block`) and at most `maxLagBlocks` behind the primary; failing that, to the primary,
 * which is never behind anyone. A replica that fails a poll or a read, or whose poll has not
 * answered within `pollDeadlineMs` (a frozen server keeps its sockets open and answers nothing),
 * is left out until a poll succeeds again. Each database is polled and judged on its own: one
 * that hangs never delays another's verdict.
 */
import { sql } from 'drizzle-orm';
import { indexedThroughBlockSql } from './checkpoint';
import { type Database, selectRows } from './client';

/** What a database has replayed, as of one statement on it. */
export interface ReplayPosition {
  block: number;
  version: bigint;
}

export interface ReplicaHealth {
  name: string;
  /** The last position read from it; null before the first successful poll. */
  position: ReplayPosition | null;
  /** Blocks behind the primary at the last poll of both; null while either is unknown. */
  lagBlocks: number | null;
  healthy: boolean;
  /** Why it is out of rotation, when it is. */
  reason: string | null;
  /** Reads routed to it since start. */
  reads: number;
}

export interface ReplicaSetOptions<Db> {
  primary: Db;
  replicas: readonly { name: string; db: Db }[];
  /** Reads one database's replay position (one statement). */
  readPosition: (db: Db) => Promise<ReplayPosition>;
  /** A replica further behind the primary than this is left out. */
  maxLagBlocks: number;
  /** How often each position is read, in ms. */
  pollMs: number;
  /** A poll unanswered after this is overdue: the replica leaves the rotation at once. */
  pollDeadlineMs: number;
  /**
   * Told when a database's poll is overdue (`primary` or a replica's name): its sessions hang on
   * a server that answers nothing, and only the caller can cut them.
   */
  onOverdue?: (name: string) => void;
  /** Told whenever a replica leaves or rejoins the rotation. */
  onChange?: (health: ReplicaHealth) => void;
}

export interface ReadRoute<Db> {
  /** `primary` or the replica's name. */
  name: string;
  db: Db;
}

export interface ReplicaSet<Db> {
  /**
   * The database for a read by a client that has seen `minBlock` (undefined: nothing yet):
   * round robin over the replicas that qualify, else the primary.
   */
  route(minBlock?: number): ReadRoute<Db>;
  /** A read on `name` failed on the connection: out of rotation until a poll succeeds. */
  failed(name: string, error: unknown): void;
  /** Per replica, for readiness and metrics. */
  health(): ReplicaHealth[];
  /** The primary's last polled position (null before the first poll). */
  primaryPosition(): ReplayPosition | null;
  /** Polls every database once now, each within its deadline (the first poll is awaited by start). */
  poll(): Promise<void>;
  start(): Promise<void>;
  stop(): void;
}

interface ReplicaState<Db> extends ReplicaHealth {
  db: Db;
}

export function createReplicaSet<Db>(options: ReplicaSetOptions<Db>): ReplicaSet<Db> {
  const primaryRoute: ReadRoute<Db> = { name: 'primary', db: options.primary };
  const states: ReplicaState<Db>[] = options.replicas.map(({ name, db }) => ({
    name,
    db,
    position: null,
    lagBlocks: null,
    healthy: false,
    reason: 'not polled yet',
    reads: 0,
  }));
  const routes = new Map(states.map((state) => [state.name, { name: state.name, db: state.db }]));
  let primary: ReplayPosition | null = null;
  let next = 0;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const polling = new Map<string, Promise<void>>();

  const setHealth = (state: ReplicaState<Db>, healthy: boolean, reason: string | null) => {
    const changed = state.healthy !== healthy || state.reason !== reason;
    state.healthy = healthy;
    state.reason = reason;
    if (changed) options.onChange?.(health(state));
  };
  const health = ({ db: _db, ...rest }: ReplicaState<Db>): ReplicaHealth => ({ ...rest });
  const judge = (state: ReplicaState<Db>) => {
    if (!state.position) return;
    state.lagBlocks = primary ? Math.max(0, primary.block - state.position.block) : null;
    if (state.lagBlocks !== null && state.lagBlocks > options.maxLagBlocks)
      setHealth(state, false, `${state.lagBlocks} blocks behind the primary (max ${options.maxLagBlocks})`);
    else setHealth(state, true, null);
  };
  const later = (work: () => void, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      work();
    }, ms);
    timer.unref();
    timers.add(timer);
    return timer;
  };

  /**
   * One poll of one database. Its verdict comes at the answer or at the deadline, whichever is
   * first; the promise settles only with the answer (or the cut that ends it), so a database is
   * never polled twice at once.
   */
  const pollOne = (name: string, db: Db, state: ReplicaState<Db> | undefined): Promise<void> => {
    const running = polling.get(name);
    if (running) return running;
    const overdue = later(() => {
      if (state) setHealth(state, false, `poll overdue: no answer within ${options.pollDeadlineMs} ms`);
      options.onOverdue?.(name);
    }, options.pollDeadlineMs);
    const answered = options
      .readPosition(db)
      .then(
        (position) => {
          if (!state) {
            primary = position;
            return;
          }
          state.position = position;
          judge(state);
        },
        (error: unknown) => {
          if (state) setHealth(state, false, `poll failed: ${messageOf(error)}`);
        },
      )
      .finally(() => {
        clearTimeout(overdue);
        timers.delete(overdue);
        polling.delete(name);
      });
    polling.set(name, answered);
    return answered;
  };
  const databases = [
    { name: 'primary', db: options.primary, state: undefined },
    ...states.map((state) => ({ name: state.name, db: state.db, state })),
  ];
  const loop = (database: (typeof databases)[number]) => {
    if (stopped) return;
    later(() => {
      void pollOne(database.name, database.db, database.state).finally(() => loop(database));
    }, options.pollMs);
  };

  const set: ReplicaSet<Db> = {
    route(minBlock) {
      const count = states.length;
      for (let tried = 0; tried < count; tried++) {
        const state = states[(next + tried) % count] as ReplicaState<Db>;
        if (!state.healthy || !state.position) continue;
        if (minBlock !== undefined && state.position.block < minBlock) continue;
        next = (next + tried + 1) % count;
        state.reads++;
        return routes.get(state.name) as ReadRoute<Db>;
      }
      return primaryRoute;
    },
    failed(name, error) {
      const state = states.find((candidate) => candidate.name === name);
      if (state) setHealth(state, false, `read failed: ${messageOf(error)}`);
    },
    health: () => states.map(health),
    primaryPosition: () => primary,
    async poll() {
      const polls = databases.map(({ name, db, state }) => pollOne(name, db, state));
      const deadline = new Promise((resolve) => later(() => resolve(undefined), options.pollDeadlineMs));
      await Promise.race([Promise.allSettled(polls), deadline]);
    },
    async start() {
      await set.poll();
      for (const database of databases) loop(database);
    },
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
  return set;
}

/** The block and read-model version `db` has, read in one statement (one snapshot). */
export async function readReplayPosition(db: Database): Promise<ReplayPosition> {
  const [row] = await selectRows<{ block: string | number; version: string | number }>(
    db,
    sql`select ${indexedThroughBlockSql} as block,
               coalesce((select version from read_model_version where id = 1), 0) as version`,
  );
  return { block: Number(row?.block ?? 0), version: BigInt(row?.version ?? 0) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
