import { sql } from 'drizzle-orm';
import { textArray } from '../../db/bulk';
import { rewindCheckpoint, withCheckpointLock } from '../../db/checkpoint';
import { type Database, selectRows } from '../../db/client';
import { bumpReadVersion } from '../../db/read-version';
import { retractWebhookEvents } from '../../webhooks/outbox';
import { journaledTables, restoreBefore, writesAbove } from '../project/journal';
import { dropLogChunksAbove } from '../store/stored-logs';
import { ReorgTooDeepError } from './find-ancestor';

export interface RollbackResult {
  /** Where the index stands afterwards: at or below the common ancestor (whole writes are undone). */
  ancestor: number;
  removedBlocks: number;
  removedTokens: number;
  undoneWrites: number;
}

/**
 * Rolls every chain-derived table back to block `ancestor` or below, in one transaction, through
 * the undo journal (project/journal.ts): the journaled writes above the ancestor are undone
 * whole, newest first, which leaves the index exactly as it was at the checkpoint before the
 * first of them. Nothing here knows a projection rule; the reorg tests compare the result with an
 * index built from scratch to the same block.
 * @throws ReorgTooDeepError when a write above the ancestor was not journaled (it was final
 * when written): the chain reorganized deeper than the finality depth.
 */
export async function rollbackTo(db: Database, ancestor: number): Promise<RollbackResult> {
  return withCheckpointLock(db, async (t, checkpoint) => {
    if (!checkpoint || checkpoint.indexedThroughBlock <= ancestor) {
      return { ancestor, removedBlocks: 0, removedTokens: 0, undoneWrites: 0 };
    }
    const undo = await writesAbove(t, ancestor);
    if (!undo)
      throw new ReorgTooDeepError(
        `the chain reorganized at block ${ancestor + 1}, below the writes still journaled (finality depth); refusing to guess. Re-index from scratch or raise FINALITY_DEPTH.`,
      );
    const target = undo.target?.indexedThroughBlock ?? undo.fromBlock - 1;

    const removedTokens = (
      await selectRows<{ address: string }>(
        t,
        sql`select address from tokens where created_block > ${target}`,
      )
    ).map((row) => row.address);
    await t.execute(sql`delete from trades where block_number > ${target}`);
    await t.execute(sql`delete from chain_events where block_number > ${target}`);
    // Intervals the undone writes closed (at a block of theirs); those they opened are the
    // `balances` rows the journal restores below.
    await t.execute(sql`delete from balance_history where to_block > ${target}`);
    for (const table of Object.values(journaledTables)) await restoreBefore(t, undo.firstSeq, table);
    // Tokens launched by the undone writes: their other rows went with the journal above.
    if (removedTokens.length > 0) {
      await t.execute(
        sql`delete from token_search_terms where token_address = any(${textArray(removedTokens)})`,
      );
      await t.execute(sql`delete from tokens where address = any(${textArray(removedTokens)})`);
    }
    await t.execute(sql`delete from projection_writes where seq >= ${undo.firstSeq}`);
    await t.execute(sql`delete from recent_blocks where number > ${target}`);
    await dropLogChunksAbove(t, target);
    await retractWebhookEvents(t, target);
    await rewindCheckpoint(t, checkpoint.indexedThroughBlock, undo.target, target);
    await bumpReadVersion(t);
    return {
      ancestor: target,
      removedBlocks: checkpoint.indexedThroughBlock - target,
      removedTokens: removedTokens.length,
      undoneWrites: undo.writes,
    };
  });
}
