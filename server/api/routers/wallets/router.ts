import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { BalancesPageInput } from '../../../../shared/api/common';
import type { HoldingsPage } from '../../../../shared/api/wallets';
import { WAD } from '../../../../shared/units';
import {
  balanceHistoryFromSql,
  indexedThroughBlockColumn,
  readBalancesPosition,
} from '../../../db/checkpoint';
import type { Database } from '../../../db/client';
import { createStatementCache, executePrepared } from '../../../db/prepared';
import { builderRowLimit } from '../../../db/row-limit';
import { balances, metadataDrafts, tokens } from '../../../db/schema';
import { decodeCursorIfAny, encodeCursor, keysetPage } from '../../cursor';
import { addressOnlyKey } from '../../cursor-keys';
import type { Context } from '../../trpc';
import { balancesList, checkBalancesBlock } from '../json-reads';
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

/**
 * The wallet's balances at the end of `block` (docs/decisions.md, "Holders at any block"): its
 * closed intervals spanning the block, and its open ones (`balances`) begun by then, begun being
 * the later of the row's last change and its token's current history segment; each in token order.
 */
function buildHoldingsAt(db: Database, name: string, after: boolean, rows: number) {
  const wallet = sql.placeholder('wallet');
  const block = sql.placeholder('block');
  const from = after ? sql`and token_address > ${sql.placeholder('after')}` : sql``;
  const limit = builderRowLimit(rows);
  const held = sql`((select token_address, balance from balance_history
        where wallet = ${wallet} and from_block <= ${block} and to_block > ${block} ${from}
        order by token_address limit ${limit})
      union all
      (select b.token_address, b.balance from balances b join tokens s on s.address = b.token_address
        where b.wallet = ${wallet} and b.since_block <= ${block} and s.history_segment <= ${block}
          ${after ? sql`and b.token_address > ${sql.placeholder('after')}` : sql``}
        order by b.token_address limit ${limit})) held`;
  return db
    .select({
      balance: sql`held.balance`.mapWith(balances.balance),
      ...tokenRowColumns,
      ib: indexedThroughBlockColumn,
      hf: sql`${balanceHistoryFromSql}`.mapWith(Number),
    })
    .from(held)
    .innerJoin(tokens, sql`${tokens.address} = held.token_address`)
    .leftJoin(metadataDrafts, boundDraftJoin)
    .orderBy(sql`held.token_address`)
    .limit(limit)
    .prepare(name);
}

const holdingsStatements = createStatementCache<ReturnType<typeof buildHoldings>>();
const holdingsAtStatements = createStatementCache<ReturnType<typeof buildHoldingsAt>>();

/**
 * Everything a wallet holds, by token address; at the end of `block` when given (the balance
 * then, everything else about the token as it is now). Excluded tokens still show (the wallet
 * does hold them) but without a price or value: moderation withdraws our valuation, not the balance.
 */
export async function listHoldings(ctx: Context, input: BalancesPageInput): Promise<HoldingsPage> {
  const list = balancesList(`holdings:${input.address}`, input.block);
  const after = decodeCursorIfAny(input.cursor, list, addressOnlyKey, ctx.cursorSecret);
  const position = `${after ? 'after' : 'first'}|${input.limit + 1}`;
  const values = { wallet: input.address, after: after?.[0], block: input.block };
  let rows: Awaited<ReturnType<ReturnType<typeof buildHoldings>['execute']>>;
  if (input.block === undefined) {
    const name = `holdings|${position}`;
    const statement = holdingsStatements(ctx.db, name, (db) =>
      buildHoldings(db, name, after !== undefined, input.limit + 1),
    );
    rows = await executePrepared(statement, values);
  } else {
    const name = `holdings-at|${position}`;
    const statement = holdingsAtStatements(ctx.db, name, (db) =>
      buildHoldingsAt(db, name, after !== undefined, input.limit + 1),
    );
    const found = await executePrepared(statement, values);
    // An empty page reads no checkpoint: read it alone to say why the block is refused, if it is.
    const [head] = found.length > 0 ? found : await readBalancesPosition(ctx.db);
    checkBalancesBlock(input.block, head?.ib ?? 0, head?.hf ?? 0);
    rows = found;
  }
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
