import { eq, sql } from 'drizzle-orm';
import type { AddressPageInput } from '../../../../shared/api/common';
import { creator } from '../../../../shared/api/creators';
import type { TokenPage } from '../../../../shared/api/tokens';
import { tokens } from '../../../db/schema';
import { AppError } from '../../../errors';
import { jsonSql } from '../../rest/json-sql';
import type { Context } from '../../trpc';
import { rowByAddress } from '../json-reads';
import { creatorTokensOrder, listByOrder } from '../tokens/list';

/** The creator's non-excluded tokens, newest first; an unknown creator has an empty page. */
export function listCreatorTokens(ctx: Context, input: AddressPageInput): Promise<TokenPage> {
  return listByOrder(ctx, { ...creatorTokensOrder, list: `creator.tokens:${input.address}` }, input, {
    shape: 'creator',
    filter: sql`${eq(tokens.creator, sql.placeholder('creator'))} and not ${tokens.excluded}`,
    values: { creator: input.address },
  });
}

/** A creator's record; 404 for an address that never launched a canonical token. */
export const getCreator = rowByAddress(
  'creators',
  'address, tokens_launched, tokens_graduated, first_launch_at, last_launch_at, total_volume',
  jsonSql(creator, {
    address: 'r.address',
    tokens_launched: 'r.tokens_launched',
    tokens_graduated: 'r.tokens_graduated',
    first_launch_at: 'r.first_launch_at',
    last_launch_at: 'r.last_launch_at',
    total_volume: 'r.total_volume',
    indexed_through_block: 'r.ib',
  }),
  (address) => new AppError('not_found', `${address} has not launched a token`),
);
