import { type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { AddressPageInput } from '../../../shared/api/common';
import { type TraderSort, traderItem, walletPnlItem } from '../../../shared/api/traders';
import { indexedThroughBlockSql } from '../../db/checkpoint';
import { compiledReads } from '../../db/compiled-read';
import { rowLimit } from '../../db/row-limit';
import { decodeCursorIfAny, encodeCursor } from '../cursor';
import { addressOnlyKey, signedAmountAndAddressKey } from '../cursor-keys';
import { jsonPageSql, jsonSql, pageJson } from '../rest/json-sql';
import { type SerializedAnswer, serializedAnswer } from '../rest/serialized';
import { tokenPages } from '../routers/json-reads';
import { itemRenderings, type TokenList, tokenExport } from '../routers/token-exports';
import type { Context } from '../trpc';

/**
 * A token's traders and a wallet's PnL (docs/api.md "Traders, PnL and labels"), written as JSON by
 * PostgreSQL from their schemas (json-sql.ts) out of the `traders` rows the indexer keeps.
 */

/** The column each sort pages by (each has its index, drizzle/0011_traders.sql). */
export const sortColumn: Record<TraderSort, string> = {
  realized_pnl: 'realized_pnl',
  volume: 'volume',
  holding: 'balance',
};

/** Held × price ÷ 10^18, truncated, − cost basis (the oracle's, test/oracle/traders.ts). */
const unrealizedAt = (price: string) =>
  `div(greatest(x.balance, 0) * ${price}, 1000000000000000000) - x.cost_basis`;

/** The fields both lists share, from `traders` row `x`, unrealized PnL at `price`. */
const position = (unrealized: string) => ({
  bought: 'x.bought',
  sold: 'x.sold',
  quote_spent: 'x.quote_spent',
  quote_received: 'x.quote_received',
  balance: 'x.balance',
  cost_basis: 'x.cost_basis',
  realized_pnl: 'x.realized_pnl',
  unrealized_pnl: unrealized,
  buys: 'x.buys',
  sells: 'x.sells',
  first_trade_block: 'x.first_trade_block',
  first_trade_at: 'x.first_trade_at',
  last_trade_block: 'x.last_trade_block',
  last_trade_at: 'x.last_trade_at',
  // In traderLabels' order.
  labels: `'[' || concat_ws(',', case when x.is_creator then '"creator"' end, case when x.sniper then '"sniper"' end,
             case when x.bundler then '"bundler"' end, case when x.creator_linked then '"creator_linked"' end) || ']'`,
});

// An excluded token keeps its row without a valuation: price and unrealized PnL null.
const walletPnlJson = jsonSql(walletPnlItem, {
  token: 'x.token_address',
  ...position(`case when x.excluded then null else ${unrealizedAt('x.price')} end`),
  price: 'case when x.excluded then null else x.price end',
});

const traderColumns = `token_address, wallet, bought, sold, quote_spent, quote_received, volume, balance, cost_basis,
  realized_pnl, buys, sells, first_trade_block, first_trade_at, last_trade_block, last_trade_at, is_creator, sniper,
  bundler, creator_linked`;

/**
 * A wallet's positions by token address, first `rows` after `after` (when `afterToken`): its
 * `traders` rows, and for each token it holds without one (it only received it) the position
 * that is its balance at zero cost (docs/api.md "Traders, PnL and labels"). Both halves walk an
 * index in token order and stop at `rows`; the holdings half skips tokens with a row by key.
 */
export function walletPositionsSql(
  param: (name: 'wallet' | 'after') => Placeholder<'wallet' | 'after'>,
  afterToken: boolean,
  rows: number,
): SQL {
  const limit = rowLimit(rows);
  return sql`(select ${sql.raw(traderColumns)} from traders
                where wallet = ${param('wallet')} ${afterToken ? sql`and token_address > ${param('after')}` : sql``}
                order by token_address limit ${limit})
              union all
              (select b.token_address, b.wallet, 0::numeric, 0::numeric, 0::numeric, 0::numeric, 0::numeric, b.balance,
                      0::numeric, 0::numeric, 0, 0, null, null, null, null, c.creator = b.wallet, false, false, false
                 from balances b join tokens c on c.address = b.token_address
                where b.wallet = ${param('wallet')} and b.kind = 0
                  ${afterToken ? sql`and b.token_address > ${param('after')}` : sql``}
                  and not exists (select 1 from traders t where t.wallet = b.wallet and t.token_address = b.token_address)
                order by b.token_address limit ${limit})
              order by token_address limit ${limit}`;
}

const traders: TokenList<[string, string], TraderSort> = {
  ...itemRenderings(traderItem, { wallet: 'x.wallet', ...position(unrealizedAt('tk.current_price')) }),
  numbered: (param, after, rows, sort) => {
    const column = sql.raw(`"${sortColumn[sort]}"`);
    return sql`(select page.*, row_number() over (order by page.${column} desc, page.wallet desc) as n
          from (select * from traders where token_address = ${param('address')}
                 ${after ? sql`and (${column}, wallet) < (${param('k0')}::numeric, ${param('k1')})` : sql``}
                 order by ${column} desc, wallet desc limit ${rowLimit(rows)}) page)`;
  },
  keys: (sort) => [`x."${sortColumn[sort]}"::text`, 'x.wallet'],
  keySchema: signedAmountAndAddressKey,
  stable: false,
};

type TradersInput = AddressPageInput & { sort?: TraderSort | undefined };

const traderPages = tokenPages(traders);
const tradersList = (input: TradersInput) => {
  const sort = input.sort ?? 'realized_pnl';
  return { list: `traders:${input.address}:${sort}`, order: sort };
};
export const tradersExport = tokenExport('traders', traders, tradersList);

/** A token's traders, largest first by `sort`: one statement, no row parsed. */
export async function listTraders(ctx: Context, input: TradersInput): Promise<SerializedAnswer> {
  const { list, order } = tradersList(input);
  const { page } = await traderPages(ctx, input, list, order);
  return serializedAnswer(`{${page}}`);
}

/** Page statements of a wallet's positions as JSON, by `first|after:rows`. */
const pnlBodies = compiledReads<
  { ib: string | number; items: string | null; n: string | number; last_token: string | null },
  'wallet' | 'after',
  string
>((param, variant) => {
  const [position, rows] = variant.split(':');
  const fetched = Number(rows);
  const numbered = sql`(select t.*, tk.current_price as price, tk.excluded, row_number() over (order by t.token_address) as n
          from (${walletPositionsSql(param, position === 'after', fetched)}) t
          join tokens tk on tk.address = t.token_address)`;
  return sql`select ${indexedThroughBlockSql} as ib, p.items, p.n, p.last_token
          from (select 1) one
          left join lateral ${jsonPageSql(walletPnlJson, numbered, fetched - 1, { token: 'x.token_address' })} p on true`;
});

/**
 * A wallet's PnL per token it has a row of or holds, by token address. A token excluded by
 * moderation keeps its row (the trades happened, so does the realized PnL) but, as in holdings,
 * without a price or an unrealized PnL: moderation withdraws our valuation.
 */
export async function listWalletPnl(ctx: Context, input: AddressPageInput): Promise<SerializedAnswer> {
  const list = `pnl:${input.address}`;
  const after = decodeCursorIfAny(input.cursor, list, addressOnlyKey, ctx.cursorSecret);
  const [row] = await pnlBodies(
    ctx.db,
    { wallet: input.address, after: after?.[0] ?? null },
    `${after ? 'after' : 'first'}:${input.limit + 1}`,
  );
  // One row always: the page is joined to `select 1`.
  const page = row ?? { ib: 0, items: null, n: 0, last_token: null };
  return serializedAnswer(
    `{${pageJson(page, input.limit, [page.last_token], () =>
      encodeCursor(list, [page.last_token as string], ctx.cursorSecret, Number(page.ib)),
    )}}`,
  );
}
