import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { bumpReadVersion } from '../db/read-version';
import { tokenExclusions, tokens } from '../db/schema';

/**
 * Hides a token from every list (detail still answers, flagged). The exclusion lives in
 * `token_exclusions`, which the indexer never writes, so it survives reorgs and re-indexing;
 * `tokens.excluded` mirrors it for the list indexes. Works for a token not indexed yet.
 */
export async function excludeToken(
  db: Database,
  address: string,
  reason: string,
): Promise<{ indexed: boolean }> {
  return db.transaction(async (tx) => {
    await tx
      .insert(tokenExclusions)
      .values({ tokenAddress: address, reason })
      .onConflictDoUpdate({ target: tokenExclusions.tokenAddress, set: { reason, createdAt: sql`now()` } });
    const updated = await tx
      .update(tokens)
      .set({ excluded: true })
      .where(eq(tokens.address, address))
      .returning({ address: tokens.address });
    await bumpReadVersion(tx);
    return { indexed: updated.length > 0 };
  });
}

/** Lifts an exclusion. */
export async function includeToken(db: Database, address: string): Promise<{ wasExcluded: boolean }> {
  return db.transaction(async (tx) => {
    const removed = await tx
      .delete(tokenExclusions)
      .where(eq(tokenExclusions.tokenAddress, address))
      .returning({ address: tokenExclusions.tokenAddress });
    await tx.update(tokens).set({ excluded: false }).where(eq(tokens.address, address));
    await bumpReadVersion(tx);
    return { wasExcluded: removed.length > 0 };
  });
}

export async function listExclusions(db: Database) {
  return db.select().from(tokenExclusions).orderBy(tokenExclusions.createdAt);
}
