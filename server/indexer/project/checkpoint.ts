import { sql } from 'drizzle-orm';
import { type Database, selectRows } from '../../db/client';
import { CHECKPOINT_ID } from '../../db/schema';

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
