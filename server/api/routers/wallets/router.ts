import { and, asc, eq, gt } from 'drizzle-orm';
import { balances, metadataDrafts, tokens } from '../../../db/schema';
import { decodeCursor, encodeCursor } from '../../cursor';
import { addressOnlyKey } from '../../cursor-keys';
import type { Context } from '../../trpc';
import { createTRPCRouter, publicProcedure } from '../../trpc';
import { boundDraftJoin, tokenRowColumns, toTokenListItem } from '../tokens/rows';
import { type HoldingsPage, holdingsInput } from './schemas';

const WAD = 10n ** 18n;

/**
 * Everything a wallet holds, by token address. Excluded tokens still show (the wallet does hold
 * them) but without a price or value: moderation withdraws our valuation, not the balance.
 */
export async function listHoldings(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined },
): Promise<HoldingsPage> {
  const list = `holdings:${input.address}`;
  const after =
    input.cursor === undefined
      ? undefined
      : decodeCursor(input.cursor, list, addressOnlyKey, ctx.cursorSecret);
  const rows = await ctx.db
    .select({ balance: balances.balance, ...tokenRowColumns })
    .from(balances)
    .innerJoin(tokens, eq(tokens.address, balances.tokenAddress))
    .leftJoin(metadataDrafts, boundDraftJoin)
    .where(and(eq(balances.wallet, input.address), after ? gt(balances.tokenAddress, after[0]) : undefined))
    .orderBy(asc(balances.tokenAddress))
    .limit(input.limit + 1);
  const pageRows = rows.slice(0, input.limit);
  const last = pageRows.at(-1);
  return {
    items: pageRows.map((row) => {
      const price = row.token.excluded ? null : row.token.currentPrice;
      return {
        token: toTokenListItem(row),
        balance: row.balance,
        lifecycle: row.token.lifecycle,
        price,
        value: price === null ? null : (row.balance * price) / WAD,
        metrics: {
          market_cap: row.token.marketCap,
          volume_24h: row.token.volume24h,
          holders: row.token.holders,
        },
      };
    }),
    next_cursor:
      rows.length > input.limit && last ? encodeCursor(list, [last.token.address], ctx.cursorSecret) : null,
  };
}

export const walletsRouter = createTRPCRouter({
  holdings: publicProcedure.input(holdingsInput).query(({ ctx, input }) => listHoldings(ctx, input)),
});
