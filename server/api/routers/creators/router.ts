import { eq, sql } from 'drizzle-orm';
import { type CreatorTokensInput, creator } from '../../../../shared/api/creators';
import type { TokenPage } from '../../../../shared/api/tokens';
import { indexedThroughBlockSql } from '../../../db/checkpoint';
import { compiledRead } from '../../../db/compiled-read';
import { tokens } from '../../../db/schema';
import { AppError } from '../../../errors';
import { jsonSql } from '../../rest/json-sql';
import { type SerializedAnswer, serializedAnswer } from '../../rest/serialized';
import type { Context } from '../../trpc';
import { creatorTokensOrder, listByOrder } from '../tokens/list';

/** The creator's non-excluded tokens, newest first; an unknown creator has an empty page. */
export function listCreatorTokens(ctx: Context, input: CreatorTokensInput): Promise<TokenPage> {
  return listByOrder(ctx, { ...creatorTokensOrder, list: `creator.tokens:${input.address}` }, input, {
    shape: 'creator',
    filter: sql`${eq(tokens.creator, sql.placeholder('creator'))} and not ${tokens.excluded}`,
    values: { creator: input.address },
  });
}

/** A creator's record; 404 for an address that never launched a canonical token. */
const creatorBody = compiledRead<{ ib: string | number; body: string }, 'address'>(
  (param) =>
    sql`select c.ib, ${jsonSql(creator, {
      address: 'c.address',
      tokens_launched: 'c.tokens_launched',
      tokens_graduated: 'c.tokens_graduated',
      first_launch_at: 'c.first_launch_at',
      last_launch_at: 'c.last_launch_at',
      total_volume: 'c.total_volume',
      indexed_through_block: 'c.ib',
    })} as body
          from (select address, tokens_launched, tokens_graduated, first_launch_at, last_launch_at, total_volume,
                       ${indexedThroughBlockSql} as ib
                  from creators where address = ${param('address')} offset 0) c`,
);

export async function getCreator(ctx: Context, address: string): Promise<SerializedAnswer> {
  const [row] = await creatorBody(ctx.db, { address });
  if (!row) throw new AppError('not_found', `${address} has not launched a token`);
  return serializedAnswer(row.body, Number(row.ib));
}
