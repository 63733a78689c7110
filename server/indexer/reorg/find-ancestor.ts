import { sql } from 'drizzle-orm';
import { type Database, selectRows } from '../../db/client';
import { IndexerError } from '../errors';
import type { RpcClient } from '../rpc/client';
import { fetchHeaders } from '../sync/headers';

/** The reorg reaches below the blocks we remember: repairing it could corrupt data, so we stop. */
export class ReorgTooDeepError extends IndexerError {
  override name = 'ReorgTooDeepError';
  readonly retry = 'never';
}

/**
 * The highest remembered block whose hash the chain still has: everything above it changed.
 * @throws ReorgTooDeepError when no remembered block within `finalityDepth` of the checkpoint
 * survives.
 */
export async function findCommonAncestor(
  db: Database,
  rpc: RpcClient,
  checkpoint: number,
  finalityDepth: number,
): Promise<number> {
  const remembered = await selectRows<{ number: string | number; hash: string }>(
    db,
    sql`select number, hash from recent_blocks where number <= ${checkpoint} and number >= ${checkpoint - finalityDepth} order by number desc`,
  );
  const step = 32;
  for (let i = 0; i < remembered.length; i += step) {
    const slice = remembered.slice(i, i + step);
    // An RPC failure propagates (the indexer retries): taken for a mismatch, it would halt the
    // indexer as if the reorg were too deep.
    const headers = await fetchHeaders(
      rpc,
      slice.map((r) => Number(r.number)),
    );
    for (const row of slice) {
      if (headers.get(Number(row.number))?.hash === row.hash) return Number(row.number);
    }
  }
  throw new ReorgTooDeepError(
    `the chain reorganized below every remembered block (checkpoint ${checkpoint}, finality depth ${finalityDepth}); refusing to guess. Re-index from scratch or raise FINALITY_DEPTH.`,
  );
}
