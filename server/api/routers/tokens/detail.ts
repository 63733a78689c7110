import { eq, sql } from 'drizzle-orm';
import type { TokenDetail } from '../../../../shared/api/tokens';
import { indexedThroughBlockColumn } from '../../../db/checkpoint';
import type { Database } from '../../../db/client';
import { createStatementCache } from '../../../db/prepared';
import { builderRowLimit } from '../../../db/row-limit';
import { metadataDrafts, tokens } from '../../../db/schema';
import { AppError } from '../../../errors';
import type { Context } from '../../trpc';
import { boundDraftJoin, priceChange24hBpsColumn, toTokenDetail } from './rows';

function buildDetail(db: Database) {
  return db
    .select({
      token: tokens,
      draft: {
        id: metadataDrafts.id,
        description: metadataDrafts.description,
        imageKey: metadataDrafts.imageKey,
        websiteUrl: metadataDrafts.websiteUrl,
        xUrl: metadataDrafts.xUrl,
        telegramUrl: metadataDrafts.telegramUrl,
        discordUrl: metadataDrafts.discordUrl,
      },
      indexedThroughBlock: indexedThroughBlockColumn,
      priceChange24hBps: priceChange24hBpsColumn,
    })
    .from(tokens)
    .leftJoin(metadataDrafts, boundDraftJoin)
    .where(eq(tokens.address, sql.placeholder('address')))
    .limit(builderRowLimit(1))
    .prepare('token_detail');
}

const detailStatements = createStatementCache<ReturnType<typeof buildDetail>>();

/**
 * One token with every group of DESIGN.md section 6. Excluded tokens still answer (with
 * `excluded: true`): moderation hides them from lists, it does not pretend they do not exist.
 */
export async function getTokenDetail(ctx: Context, address: string): Promise<TokenDetail> {
  const [row] = await detailStatements(ctx.db, 'token_detail', buildDetail).execute({ address });
  if (!row) throw new AppError('not_found', `no launched token at ${address}`);
  return toTokenDetail(
    row.token,
    row.draft?.id ? row.draft : null,
    row.indexedThroughBlock ?? 0,
    row.priceChange24hBps,
  );
}
