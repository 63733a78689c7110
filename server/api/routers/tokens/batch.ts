import { inArray } from 'drizzle-orm';
import type { TokensBatch, TokensBatchInput } from '../../../../shared/api/tokens';
import { indexedThroughBlockColumn, readIndexedThroughBlock } from '../../../db/checkpoint';
import { metadataDrafts, tokens } from '../../../db/schema';
import type { Context } from '../../trpc';
import { boundDraftJoin, tokenRowColumns, toTokenListItem } from './rows';

/**
 * Many tokens in one call, as list items in the order asked: one statement (an index probe per
 * address) that also reads `indexed_through_block`, so every item is of one snapshot. Unknown
 * addresses and tokens hidden by moderation are named apart instead of failing the call.
 */
export async function getTokensBatch(ctx: Context, input: TokensBatchInput): Promise<TokensBatch> {
  const rows = await ctx.db
    .select({ ...tokenRowColumns, indexedThroughBlock: indexedThroughBlockColumn })
    .from(tokens)
    .leftJoin(metadataDrafts, boundDraftJoin)
    .where(inArray(tokens.address, input.addresses));
  const byAddress = new Map(rows.map((row) => [row.token.address, row]));
  const answer: TokensBatch = {
    // With no row found, a second read gives the checkpoint (still one snapshot for the items: none).
    indexed_through_block: rows[0]?.indexedThroughBlock ?? (await readIndexedThroughBlock(ctx.db)),
    items: [],
    not_found: [],
    excluded: [],
  };
  for (const address of input.addresses) {
    const row = byAddress.get(address);
    if (!row) answer.not_found.push(address);
    else if (row.token.excluded) answer.excluded.push(address);
    else answer.items.push(toTokenListItem(row));
  }
  return answer;
}
