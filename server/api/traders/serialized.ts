import { type SQL, sql } from 'drizzle-orm';
import type { TraderSort, TradersPage, WalletPnlPage } from '../../../shared/api/traders';
import { indexedThroughBlockSql } from '../../db/checkpoint';
import { compiledReads } from '../../db/compiled-read';
import { rowLimit } from '../../db/row-limit';
import { AppError } from '../../errors';
import { decodeCursorIfAny, encodeCursor } from '../cursor';
import { addressOnlyKey, signedAmountAndAddressKey } from '../cursor-keys';
import { jsonIntegerSql, type SerializedAnswer, serializedAnswer } from '../rest/serialized';
import type { Context } from '../trpc';
import { sortColumn, walletPositionsSql } from './read';

/**
 * REST answers of traders and wallet PnL whose JSON PostgreSQL writes, byte for byte what
 * serializing read.ts's structured answers (served to tRPC) writes, as serialized.ts does for
 * trades: every value is hex, digits or a fixed word. Unrealized PnL is computed as
 * `unrealizedPnl` computes it (held × price ÷ 10^18, truncated, − cost basis).
 */

const integer = jsonIntegerSql;

/** The fields both lists share, from `traders` row `x` at `price`, in the schema's order. */
function positionJson(unrealized: SQL): SQL {
  return sql`'"bought":"' || x.bought || '","sold":"' || x.sold || '","quote_spent":"' || x.quote_spent
    || '","quote_received":"' || x.quote_received || '","balance":"' || x.balance || '","cost_basis":"' || x.cost_basis
    || '","realized_pnl":"' || x.realized_pnl || '","unrealized_pnl":' || ${unrealized}
    || ',"buys":' || x.buys || ',"sells":' || x.sells
    || ',"first_trade_block":' || ${integer('x.first_trade_block')} || ',"first_trade_at":' || ${integer('x.first_trade_at')}
    || ',"last_trade_block":' || ${integer('x.last_trade_block')} || ',"last_trade_at":' || ${integer('x.last_trade_at')}
    || ',"labels":[' || concat_ws(',', case when x.is_creator then '"creator"' end, case when x.sniper then '"sniper"' end,
                                  case when x.bundler then '"bundler"' end, case when x.creator_linked then '"creator_linked"' end) || ']'`;
}

const unrealizedAt = (price: string) =>
  sql.raw(`'"' || (div(greatest(x.balance, 0) * ${price}, 1000000000000000000) - x.cost_basis) || '"'`);

/**
 * Page statements of a token's traders as JSON, by `sort|first|after:rows`: the first `rows − 1`
 * as the items' text, the sort key of the last of them, and whether one more follows.
 */
const traderBodies = compiledReads<
  {
    ib: string | number;
    token: string | null;
    items: string | null;
    n: string | number;
    last_value: string | null;
    last_wallet: string | null;
  },
  'address' | 'value' | 'wallet',
  string
>((param, variant) => {
  const [sort, position, rows] = variant.split(/[|:]/) as [TraderSort, string, string];
  const column = sql.raw(`"${sortColumn[sort]}"`);
  const fetched = Number(rows);
  const limit = rowLimit(fetched - 1);
  return sql`select ${indexedThroughBlockSql} as ib, tk.address as token, p.items, p.n, p.last_value, p.last_wallet
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral (
            select string_agg('{"wallet":"' || x.wallet || '",' || ${positionJson(unrealizedAt('tk.current_price'))} || '}', ','
                     order by x.n) filter (where x.n <= ${limit}) as items,
                   count(*) as n,
                   max(x.${column}::text) filter (where x.n = ${limit}) as last_value,
                   max(x.wallet) filter (where x.n = ${limit}) as last_wallet
              from (select page.*, row_number() over (order by page.${column} desc, page.wallet desc) as n
                      from (select * from traders where token_address = ${param('address')}
                             ${position === 'after' ? sql`and (${column}, wallet) < (${param('value')}::numeric, ${param('wallet')})` : sql``}
                             order by ${column} desc, wallet desc limit ${rowLimit(fetched)}) page) x) p on true`;
});

/** {@link listTraders} as JSON text: one statement, no row parsed. */
export async function listTradersSerialized(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined; sort?: TraderSort | undefined },
): Promise<TradersPage | SerializedAnswer> {
  const sort = input.sort ?? 'realized_pnl';
  const list = `traders:${input.address}:${sort}`;
  const key = decodeCursorIfAny(input.cursor, list, signedAmountAndAddressKey, ctx.cursorSecret);
  const [row] = await traderBodies(
    ctx.db,
    { address: input.address, value: key?.[0] ?? null, wallet: key?.[1] ?? null },
    `${sort}|${key ? 'after' : 'first'}:${input.limit + 1}`,
  );
  if (!row?.token) throw new AppError('not_found', `no launched token at ${input.address}`);
  const next =
    Number(row.n) > input.limit && row.last_value !== null && row.last_wallet !== null
      ? `"${encodeCursor(list, [row.last_value, row.last_wallet], ctx.cursorSecret, Number(row.ib))}"`
      : 'null';
  return serializedAnswer(`{"items":[${row.items ?? ''}],"next_cursor":${next}}`);
}

/** Page statements of a wallet's positions as JSON, by `first|after:rows`. */
const pnlBodies = compiledReads<
  { ib: string | number; items: string | null; n: string | number; last_token: string | null },
  'wallet' | 'after',
  string
>((param, variant) => {
  const [position, rows] = variant.split(':');
  const fetched = Number(rows);
  const limit = rowLimit(fetched - 1);
  // An excluded token keeps its row without a valuation: price and unrealized PnL null (read.ts).
  const unrealized = sql`case when x.excluded then 'null' else ${unrealizedAt('x.price')} end`;
  return sql`select ${indexedThroughBlockSql} as ib, p.items, p.n, p.last_token
          from (select 1) one
          left join lateral (
            select string_agg('{"token":"' || x.token_address || '",' || ${positionJson(unrealized)}
                     || ',"price":' || case when x.excluded then 'null' else '"' || x.price || '"' end || '}', ','
                     order by x.n) filter (where x.n <= ${limit}) as items,
                   count(*) as n,
                   max(x.token_address) filter (where x.n = ${limit}) as last_token
              from (select t.*, tk.current_price as price, tk.excluded, row_number() over (order by t.token_address) as n
                      from (${walletPositionsSql(param, position === 'after', fetched)}) t
                      join tokens tk on tk.address = t.token_address) x) p on true`;
});

/** {@link listWalletPnl} as JSON text: one statement, no row parsed. */
export async function listWalletPnlSerialized(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined },
): Promise<WalletPnlPage | SerializedAnswer> {
  const list = `pnl:${input.address}`;
  const after = decodeCursorIfAny(input.cursor, list, addressOnlyKey, ctx.cursorSecret);
  const [row] = await pnlBodies(
    ctx.db,
    { wallet: input.address, after: after?.[0] ?? null },
    `${after ? 'after' : 'first'}:${input.limit + 1}`,
  );
  const next =
    row && Number(row.n) > input.limit && row.last_token !== null
      ? `"${encodeCursor(list, [row.last_token], ctx.cursorSecret, Number(row.ib))}"`
      : 'null';
  return serializedAnswer(`{"items":[${row?.items ?? ''}],"next_cursor":${next}}`);
}
