import { sql } from 'drizzle-orm';
import type { ChainConfig, DatabaseConfig } from '../../config';
import { type DatabaseHandle, openDatabase, selectRows } from '../../db/client';
import { openPostgres } from '../../db/connector';
import { rebuildDeferredIndexes } from '../../db/deferred-indexes';
import { appliedMigrationCount, migrateDatabase } from '../../db/migrate';
import { PROJECTION_VERSION } from '../../db/projection-tables';
import { createIndexer, type IndexerOptions } from '../indexer';
import type { IndexerLogger } from '../progress';
import type { RpcClient } from '../rpc/client';
import {
  createRebuildSchema,
  dropSchema,
  quote,
  REBUILD_SCHEMA,
  RETIRED_SCHEMA,
  readSchemaMark,
} from './schema';
import { type SwapResult, swapIn } from './swap';

/**
 * `npm run indexer -- rebuild`: every projection computed anew from the event store, beside the
 * live index, then swapped in for it (docs/decisions.md, "Upgrades rebuild beside the live index").
 *
 * 1. An empty copy of the projection tables in schema `launchdex_rebuild` (or the one a killed
 *    rebuild left, if made for the same migrations: the rebuild resumes at its checkpoint).
 * 2. Replay: the live event store's chunks, folded and written as the indexer does, without
 *    the RPC, up to the live checkpoint less the finality depth (blocks a reorg cannot replace).
 * 3. Catch-up: the indexer on the RPC from there to the head, as any indexer follows it
 *    (reorgs included), storing the logs it reads.
 * 4. Swap (swap.ts), once the rebuilt checkpoint is at or past the live one; the old tables are
 *    dropped, or kept in `launchdex_retired` (`keepOld`).
 *
 * The live index is only read (its event store), never written, until the swap's transaction.
 */
export interface RebuildOptions {
  database: DatabaseConfig;
  chain: ChainConfig;
  rpc: RpcClient;
  logger: IndexerLogger;
  /** Keep the replaced tables in schema `launchdex_retired` instead of dropping them. */
  keepOld?: boolean;
  /** Read every log from the RPC again (projections of events the store does not hold). */
  fromRpc?: boolean;
  /** Indexer tuning for both phases (tests: small ranges). */
  indexer?: Partial<Pick<IndexerOptions, 'initialRange' | 'eventsPerWrite' | 'progressIntervalMs'>>;
  /** Told when a phase begins (tests, and the bench's timing). */
  onPhase?: (phase: 'replay' | 'catch-up' | 'swap', at: number) => void | Promise<void>;
  /** Swap attempts while the live indexer stays ahead or holds its locks. */
  swapAttempts?: number;
  /**
   * The process's open database, used instead of a handle of the rebuild's own and left open:
   * embedded PGlite admits one per directory. Nothing else may use it while the rebuild runs (its
   * one session reads the rebuild's schema first).
   */
  handle?: DatabaseHandle;
}

export interface RebuildReport {
  /** Where the replay started (a resumed rebuild: after its checkpoint) and ended. */
  /** `fundingBlocks`: whole blocks read from the RPC for the funding check (none when the store has them). */
  replayed: { from: number; to: number; events: number; seconds: number; fundingBlocks: number };
  /** The catch-up from the RPC, with the reorgs it repaired. */
  caughtUp: { to: number; events: number; seconds: number; reorgs: number };
  swap: Extract<SwapResult, { status: 'swapped' }>;
}

/** Advisory lock key of a running rebuild (any fixed value, distinct from the others). */
const REBUILD_LOCK_ID = '7307157361213370002';

export async function rebuildIndex(options: RebuildOptions): Promise<RebuildReport> {
  const { database, chain, rpc, logger } = options;
  const releaseLock = database.kind === 'postgres' ? await lockRebuild(database) : async () => {};
  const handle =
    options.handle ?? (await openDatabase(database, { max: 4, applicationName: 'launchdex-rebuild' }));
  let target: DatabaseHandle | undefined;
  let live: string | undefined;
  try {
    await migrateDatabase(handle);
    live = await currentSchema(handle);
    const mark = `rebuild of ${live} at ${await appliedMigrationCount(handle)} migrations, projection version ${PROJECTION_VERSION}`;
    const found = await readSchemaMark(handle.db, REBUILD_SCHEMA);
    if (found !== undefined && found !== mark) {
      logger.warn({ found, mark }, 'dropping a rebuild schema made for other migrations');
      await dropSchema(handle.db, REBUILD_SCHEMA);
    }
    if (found === mark) logger.info({}, `resuming the rebuild in schema ${REBUILD_SCHEMA}`);
    else await createRebuildSchema(handle.db, live, REBUILD_SCHEMA, mark);
    // Names without a schema are the rebuild's tables, then the live ones it does not copy
    // (drafts, exclusions: applied to the tokens it creates). PGlite has one session: that one.
    const searchPath = `${quote(REBUILD_SCHEMA)}, ${quote(live)}`;
    if (handle.driver === 'pglite') {
      await handle.exec(`set search_path to ${searchPath}`);
      target = handle;
    } else {
      target = await openDatabase(database, {
        max: 4,
        applicationName: 'launchdex-rebuild',
        // A kill loses at most the last commits, which the rebuild's checkpoint does not cover either.
        settings: { search_path: searchPath, synchronous_commit: 'off' },
      });
    }
    const db = target.db;
    const indexer = createIndexer({
      db,
      rpc,
      chain,
      logger,
      // The read API's indexes are built once, sorted, before the swap.
      deferredIndexes: rebuildDeferredIndexes,
      ...options.indexer,
    });

    const [liveHead] = await selectRows<{ block: string | number | null }>(
      db,
      sql.raw(
        `select (select indexed_through_block from ${quote(live)}.indexer_checkpoint where id = 'main') as block`,
      ),
    );
    const replayThrough =
      options.fromRpc || liveHead?.block === null || liveHead?.block === undefined
        ? -1
        : Number(liveHead.block) - chain.finalityDepth;
    const before = indexer.status.events;
    const fundingBefore = indexer.status.fundingBlocks;
    let started = performance.now();
    const resumedAt = (
      await selectRows<{ block: string | number | null }>(
        db,
        sql`select (select indexed_through_block from indexer_checkpoint where id = 'main') as block`,
      )
    )[0]?.block;
    const replayFrom =
      resumedAt === null || resumedAt === undefined ? Number(chain.startBlock) : Number(resumedAt) + 1;
    await options.onPhase?.('replay', replayFrom);
    const replayedTo =
      replayThrough >= replayFrom ? await indexer.replay({ schema: live }, replayThrough) : replayFrom - 1;
    const replayed = {
      from: replayFrom,
      to: replayedTo,
      events: indexer.status.events - before,
      seconds: (performance.now() - started) / 1000,
      fundingBlocks: indexer.status.fundingBlocks - fundingBefore,
    };
    logger.info(
      replayed,
      `replayed ${replayed.events} stored events (blocks ${replayFrom}–${replayedTo}) in ${replayed.seconds.toFixed(2)} s`,
    );

    started = performance.now();
    await options.onPhase?.('catch-up', replayedTo + 1);
    const caughtUpFrom = indexer.status.events;
    let swap: SwapResult | undefined;
    const attempts = options.swapAttempts ?? 20;
    for (let attempt = 1; ; attempt++) {
      await indexer.syncToHead();
      await options.onPhase?.('swap', indexer.status.indexedThroughBlock ?? replayedTo);
      await dropSchema(db, RETIRED_SCHEMA);
      try {
        swap = await swapIn(db, { live, target: REBUILD_SCHEMA, retired: RETIRED_SCHEMA });
      } catch (error) {
        if (!isLockConflict(error) || attempt >= attempts) throw error;
        logger.warn({ attempt }, 'the live index is busy; trying the swap again');
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      if (swap.status === 'swapped') break;
      if (attempt >= attempts)
        throw new Error(`the live index stays ahead of the rebuilt one (${swap.live} > ${swap.rebuilt})`);
    }
    const caughtUp = {
      to: swap.to,
      events: indexer.status.events - caughtUpFrom,
      seconds: (performance.now() - started) / 1000,
      reorgs: indexer.status.reorgs,
    };
    logger.info(
      { ...swap },
      `swapped in the rebuilt index at block ${swap.to} (the live one was at ${swap.from ?? 'none'})`,
    );
    // What is left of the rebuild schema is its empty copies of the live log and outbox.
    if (handle.driver === 'pglite') await handle.exec(`set search_path to ${quote(live)}`);
    await dropSchema(handle.db, REBUILD_SCHEMA);
    if (!options.keepOld) await dropSchema(handle.db, RETIRED_SCHEMA);
    return { replayed, caughtUp, swap };
  } finally {
    if (target && target !== handle) await target.close();
    if (!options.handle) await handle.close();
    else if (handle.driver === 'pglite' && live !== undefined)
      await handle.exec(`set search_path to ${quote(live)}`).catch(() => {});
    await releaseLock();
  }
}

async function currentSchema(handle: DatabaseHandle): Promise<string> {
  const [row] = await selectRows<{ schema: string }>(handle.db, sql`select current_schema() as schema`);
  if (!row?.schema) throw new Error('the database has no current schema');
  return row.schema;
}

/** SQLSTATE of a lock wait the swap gave up (lock_timeout) or a deadlock PostgreSQL broke. */
function isLockConflict(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: string }).code;
    if (code === '55P03' || code === '40P01') return true;
  }
  return false;
}

/** Holds the rebuild lock for this process's session, or refuses: one rebuild at a time. */
async function lockRebuild(database: Extract<DatabaseConfig, { kind: 'postgres' }>) {
  const { client, connector } = openPostgres(database, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    onnotice: () => {},
    connection: { application_name: 'launchdex-rebuild-lock' },
  });
  const end = async () => {
    await connector.close();
    await client.end({ timeout: 2 });
  };
  const [row] = await client<
    { locked: boolean }[]
  >`select pg_try_advisory_lock(${REBUILD_LOCK_ID}::bigint) as locked`;
  if (!row?.locked) {
    await end();
    throw new Error('another rebuild is running on this database');
  }
  return end;
}
