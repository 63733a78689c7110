import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { AddressPageInput } from '../../../../shared/api/common';
import type { HoldingsPage } from '../../../../shared/api/wallets';
import { WAD } from '../../../../shared/units';
import { indexedThroughBlockColumn } from '../../../db/checkpoint';
import type { Database } from '../../../db/client';
import { createStatementCache, executePrepared } from '../../../db/prepared';
import { builderRowLimit } from '../../../db/row-limit';
import { balances, metadataDrafts, tokens } from '../../../db/schema';
import { decodeCursorIfAny, encodeCursor, keysetPage } from '../../cursor';
import { addressOnlyKey } from '../../cursor-keys';
import type { Context } from '../../trpc';
import { boundDraftJoin, tokenRowColumns, toTokenListItem } from '../tokens/rows';

function buildHoldings(db: Database, name: string, after: boolean, rows: number) {
  return db
    .select({ balance: balances.balance, ...tokenRowColumns, ib: indexedThroughBlockColumn })
    .from(balances)
    .innerJoin(tokens, eq(tokens.address, balances.tokenAddress))
    .leftJoin(metadataDrafts, boundDraftJoin)
    .where(
      and(
        eq(balances.wallet, sql.placeholder('wallet')),
        after ? gt(balances.tokenAddress, sql.placeholder('after')) : undefined,
      ),
    )
    .orderBy(asc(balances.tokenAddress))
    .limit(builderRowLimit(rows))
    .prepare(name);
}

const holdingsStatements = createStatementCache<ReturnType<typeof buildHoldings>>();

/**
 * Everything a wallet holds, by token address. Excluded tokens still show (the wallet does hold
 * them) but without a price or value: moderation withdraws our valuation, not the balance.
 */
export async function listHoldings(ctx: Context, input: AddressPageInput): Promise<HoldingsPage> {
  const list = `holdings:${input.address}`;
  const after = decodeCursorIfAny(input.cursor, list, addressOnlyKey, ctx.cursorSecret);
  const name = `holdings|${after ? 'after' : 'first'}|${input.limit + 1}`;
  const statement = holdingsStatements(ctx.db, name, (db) =>
    buildHoldings(db, name, after !== undefined, input.limit + 1),
  );
  const rows = await executePrepared(statement, { wallet: input.address, after: after?.[0] });
  const page = keysetPage(
    rows,
    input.limit,
    (last, block) => encodeCursor(list, [last.token.address], ctx.cursorSecret, block),
    rows[0]?.ib ?? 0,
  );
  return {
    items: page.rows.map((row) => {
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
    next_cursor: page.nextCursor,
  };
}
