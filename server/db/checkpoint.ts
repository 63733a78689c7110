import { sql } from 'drizzle-orm';
import { type Database, selectRows } from './client';
import { frozenSql } from './frozen-sql';
import { INDEX_CHANNEL } from './notify';
import { PROJECTION_VERSION } from './projection-tables';
import { CHECKPOINT_ID } from './schema';

/** Anything that runs SQL: the database or a transaction of it. */
type Executor = Pick<Database, 'execute'>;

/**
 * The indexer's checkpoint, in one place: the indexer writes it with every projection change
 * (withCheckpointLock, then advanceCheckpoint or rewindCheckpoint); readers take it in the same
 * statement as the data it accompanies. Every move of it is logged in `index_changes` in the same
 * transaction, so a reader can tell what happened between two of its reads, rollbacks included.
 */

/**
 * Entries of `index_changes` kept. A reader whose last position is older (a resume token from
 * far back) is told to refetch. At one write per block this is hours of blocks, well past the
 * stream's 1,000-block resume window.
 */
export const INDEX_CHANGES_KEPT = 10_000;

/** The last block whose effects every projection holds, written with them in one transaction. */
export interface Checkpoint {
  indexedThroughBlock: number;
  blockHash: string;
  blockTimestamp: number;
}

/** The checkpoint; `lock` holds it (FOR UPDATE) until the surrounding transaction ends. */
export async function readCheckpoint(db: Database, lock = false): Promise<Checkpoint | undefined> {
  const rows = await selectRows<{
    indexed_through_block: string | number;
    block_hash: string;
    block_timestamp: string | number;
  }>(
    db,
    sql`select indexed_through_block, block_hash, block_timestamp from indexer_checkpoint where id = ${CHECKPOINT_ID} ${lock ? sql`for update` : sql``}`,
  );
  const row = rows[0];
  return row
    ? {
        indexedThroughBlock: Number(row.indexed_through_block),
        blockHash: row.block_hash,
        blockTimestamp: Number(row.block_timestamp),
      }
    : undefined;
}

/**
 * Runs `work` in one transaction that holds the checkpoint row (FOR UPDATE) from its start: the
 * two writers of projections, a range's write and a rollback, take turns through it and each
 * decides from the checkpoint it holds.
 */
export function withCheckpointLock<T>(
  db: Database,
  work: (t: Database, checkpoint: Checkpoint | undefined) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    return work(t, await readCheckpoint(t, true));
  });
}

/**
 * `indexed_through_block` as a scalar subquery, so it is read in the same statement (and so the
 * same snapshot) as the data it accompanies.
 */
export const indexedThroughBlockSql = frozenSql(
  sql`coalesce((select indexed_through_block from indexer_checkpoint where id = ${CHECKPOINT_ID}), 0)`,
);

/**
 * The first block `balance_history` holds, as a scalar subquery of the statement it belongs to
 * (0 before the first indexed block: an index built with the history holds it all).
 */
export const balanceHistoryFromSql = frozenSql(
  sql`coalesce((select balance_history_from_block from indexer_checkpoint where id = ${CHECKPOINT_ID}), 0)`,
);

/** The same subquery as a typed column for drizzle selects; 0 before the first indexed block. */
export const indexedThroughBlockColumn = sql<number>`${indexedThroughBlockSql}`.mapWith(
  (value: string | number) => Number(value),
);

/** `indexed_through_block` on its own (health, status, finalize's not_indexed details). */
export async function readIndexedThroughBlock(db: Database): Promise<number> {
  const [row] = await selectRows<{ block: string | number }>(
    db,
    sql`select ${indexedThroughBlockSql} as block`,
  );
  return Number(row?.block ?? 0);
}

/** `indexed_through_block` and the first block balance history holds, read together. */
export async function readBalancesPosition(db: Database): Promise<{ ib: number; hf: number }[]> {
  const rows = await selectRows<{ ib: string | number; hf: string | number }>(
    db,
    sql`select ${indexedThroughBlockSql} as ib, ${balanceHistoryFromSql} as hf`,
  );
  return rows.map((row) => ({ ib: Number(row.ib), hf: Number(row.hf) }));
}

/** The indexed head block's timestamp as a scalar subquery (null before the first block). */
export const indexedHeadTimestampSql = frozenSql(
  sql`(select block_timestamp from indexer_checkpoint where id = ${CHECKPOINT_ID})`,
);

/**
 * Appends one entry to `index_changes` and drops the oldest beyond INDEX_CHANGES_KEPT. Only
 * called with the checkpoint row locked (withCheckpointLock, or the swap of a rebuilt index,
 * which holds the whole table), so `seq` is gap-free and entries are numbered in commit order.
 */
export async function logIndexChange(
  t: Executor,
  change: { kind: 'advance' | 'rollback'; fromBlock: number; toBlock: number; blockHash: string | null },
): Promise<void> {
  await t.execute(sql`insert into index_changes (seq, kind, from_block, to_block, block_hash)
    select coalesce(max(seq), 0) + 1, ${change.kind}, ${change.fromBlock}, ${change.toBlock}, ${change.blockHash} from index_changes`);
  await t.execute(
    sql`delete from index_changes where seq <= (select max(seq) from index_changes) - ${INDEX_CHANGES_KEPT}`,
  );
  // Delivered at commit: a stream hub polls the moment the change is visible, not at its next tick.
  await t.execute(sql`select pg_notify(${INDEX_CHANNEL}, '')`);
}

/**
 * Moves the checkpoint forward to `head` after a write of blocks `fromBlock`..head, in the
 * write's transaction (holding the checkpoint lock), and logs the advance.
 */
export async function advanceCheckpoint(
  t: Executor,
  chainId: number,
  fromBlock: number,
  head: Checkpoint,
): Promise<void> {
  // The version is written when the index begins only: following the chain does not fold the
  // blocks an older version folded again.
  await t.execute(sql`insert into indexer_checkpoint (id, chain_id, indexed_through_block, block_hash, block_timestamp, updated_at, projection_version)
    values (${CHECKPOINT_ID}, ${chainId}, ${head.indexedThroughBlock}, ${head.blockHash}, ${head.blockTimestamp}, now(), ${PROJECTION_VERSION})
    on conflict (id) do update set indexed_through_block = excluded.indexed_through_block, block_hash = excluded.block_hash,
      block_timestamp = excluded.block_timestamp, updated_at = excluded.updated_at`);
  await logIndexChange(t, {
    kind: 'advance',
    fromBlock,
    toBlock: head.indexedThroughBlock,
    blockHash: head.blockHash,
  });
}

/**
 * Moves the checkpoint back from `fromBlock` to `target` (undefined: to before the first indexed
 * block, `targetBlock`), in the rollback's transaction, and logs the rollback with the lowest
 * block it kept: readers of the log learn of it even when the index is past `fromBlock` again
 * by their next read.
 */
export async function rewindCheckpoint(
  t: Executor,
  fromBlock: number,
  target: Checkpoint | undefined,
  targetBlock: number,
): Promise<void> {
  if (target) {
    await t.execute(sql`update indexer_checkpoint set indexed_through_block = ${target.indexedThroughBlock},
      block_hash = ${target.blockHash}, block_timestamp = ${target.blockTimestamp}, updated_at = now()
      where id = ${CHECKPOINT_ID}`);
  } else {
    await t.execute(sql`delete from indexer_checkpoint where id = ${CHECKPOINT_ID}`);
  }
  await logIndexChange(t, {
    kind: 'rollback',
    fromBlock,
    toBlock: target?.indexedThroughBlock ?? targetBlock,
    blockHash: target?.blockHash ?? null,
  });
}

/**
 * Which index the projection tables are: the identity of the checkpoint table the name resolves
 * to now. A rebuild swaps in tables of its own (server/indexer/rebuild/), so an indexer that
 * folded ahead of the index it read (caches, plans) finds it changed under its lock and stops.
 */
export async function readIndexGeneration(db: Database): Promise<string> {
  const [row] = await selectRows<{ generation: string }>(
    db,
    sql`select 'indexer_checkpoint'::regclass::oid::text as generation`,
  );
  return String(row?.generation);
}

/** Where the index stands: its checkpoint block and the last `index_changes` entry (0: none yet). */
export interface IndexPosition {
  block: number;
  seq: number;
}

/** The checkpoint and the log's position, read in one statement (one snapshot), and the database's id. */
export async function readIndexPosition(db: Database): Promise<IndexPosition & { database: string }> {
  const [row] = await selectRows<{ block: string | number; seq: string | number; database: string | null }>(
    db,
    sql`select ${indexedThroughBlockSql} as block, coalesce((select max(seq) from index_changes), 0) as seq,
               (select value from service_secrets where name = 'database_id') as database`,
  );
  return { block: Number(row?.block ?? 0), seq: Number(row?.seq ?? 0), database: row?.database ?? '' };
}

export interface RollbacksBetween {
  /** The lowest block a rollback of entries (after, through] kept; null when none rolled back. */
  lowestKept: number | null;
  /** False when entries after `after` were pruned: what happened since is unknown. */
  known: boolean;
}

/** The rollbacks logged after entry `after` up to entry `through`. */
export async function readRollbacksBetween(
  db: Database,
  after: number,
  through: number,
): Promise<RollbacksBetween> {
  if (after >= through) return { lowestKept: null, known: true };
  const [row] = await selectRows<{ oldest: string | number | null; lowest: string | number | null }>(
    db,
    sql`select (select min(seq) from index_changes) as oldest,
               (select min(to_block) from index_changes
                 where seq > ${after} and seq <= ${through} and kind = 'rollback') as lowest`,
  );
  const oldest = row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
  return {
    lowestKept: row?.lowest === null || row?.lowest === undefined ? null : Number(row.lowest),
    known: oldest !== null && oldest <= after + 1,
  };
}
