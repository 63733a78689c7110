import { sql } from 'drizzle-orm';
import { type Database, selectRows } from './client';
import { frozenSql } from './frozen-sql';
import { CHECKPOINT_ID } from './schema';

/**
 * The indexer's checkpoint, in one place: the indexer writes it with every projection change
 * (withCheckpointLock); readers take it in the same statement as the data it accompanies.
 */

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

/** The indexed head block's timestamp as a scalar subquery (null before the first block). */
export const indexedHeadTimestampSql = frozenSql(
  sql`(select block_timestamp from indexer_checkpoint where id = ${CHECKPOINT_ID})`,
);
