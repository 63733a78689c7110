import { type Placeholder, type SQL, sql } from 'drizzle-orm';
import {
  type TraderSort,
  type TradersPage,
  traderLabels,
  type WalletPnlPage,
} from '../../../shared/api/traders';
import { unrealizedPnl } from '../../../shared/trade/unrealized-pnl';
import { indexedThroughBlockSql } from '../../db/checkpoint';
import { compiledReads } from '../../db/compiled-read';
import { rowLimit } from '../../db/row-limit';
import { AppError } from '../../errors';
import { decodeCursorIfAny, encodeCursor, keysetPage } from '../cursor';
import { addressOnlyKey, signedAmountAndAddressKey } from '../cursor-keys';
import type { Context } from '../trpc';

/** The column each sort pages by (each has its index, drizzle/0011_traders.sql). */
export const sortColumn: Record<TraderSort, string> = {
  realized_pnl: 'realized_pnl',
  volume: 'volume',
  holding: 'balance',
};

const positionColumns = sql.raw(
  `x.bought::text, x.sold::text, x.quote_spent::text, x.quote_received::text, x.balance::text,
   x.cost_basis::text, x.realized_pnl::text, x.volume::text, x.buys, x.sells, x.first_trade_block,
   x.first_trade_at, x.last_trade_block, x.last_trade_at, x.is_creator, x.sniper, x.bundler, x.creator_linked`,
);

type PositionRow = {
  bought: string;
  sold: string;
  quote_spent: string;
  quote_received: string;
  balance: string;
  cost_basis: string;
  realized_pnl: string;
  volume: string;
  buys: number;
  sells: number;
  first_trade_block: string | number | null;
  first_trade_at: string | number | null;
  last_trade_block: string | number | null;
  last_trade_at: string | number | null;
  is_creator: boolean;
  sniper: boolean;
  bundler: boolean;
  creator_linked: boolean;
};

const orNull = (v: string | number | null) => (v === null ? null : Number(v));

function position(r: PositionRow, price: bigint) {
  const balance = BigInt(r.balance);
  const costBasis = BigInt(r.cost_basis);
  const flags = [r.is_creator, r.sniper, r.bundler, r.creator_linked];
  return {
    bought: BigInt(r.bought),
    sold: BigInt(r.sold),
    quote_spent: BigInt(r.quote_spent),
    quote_received: BigInt(r.quote_received),
    balance,
    cost_basis: costBasis,
    realized_pnl: BigInt(r.realized_pnl),
    unrealized_pnl: unrealizedPnl(balance, costBasis, price),
    buys: Number(r.buys),
    sells: Number(r.sells),
    first_trade_block: orNull(r.first_trade_block),
    first_trade_at: orNull(r.first_trade_at),
    last_trade_block: orNull(r.last_trade_block),
    last_trade_at: orNull(r.last_trade_at),
    labels: traderLabels.filter((_, i) => flags[i]),
  };
}

/** Page statements of a token's traders, by `sort|first|after:rows`. */
const traderRows = compiledReads<
  Partial<PositionRow> & {
    token: string | null;
    price: string | null;
    wallet: string | null;
    ib: string | number;
  },
  'address' | 'value' | 'wallet',
  string
>((param, variant) => {
  const [sort, position, rows] = variant.split(/[|:]/) as [TraderSort, string, string];
  const column = sql.raw(`"${sortColumn[sort]}"`);
  return sql`select tk.address as token, tk.current_price::text as price, x.wallet, ${indexedThroughBlockSql} as ib, ${positionColumns}
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral (
            select * from traders where token_address = ${param('address')}
             ${position === 'after' ? sql`and (${column}, wallet) < (${param('value')}::numeric, ${param('wallet')})` : sql``}
             order by ${column} desc, wallet desc limit ${rowLimit(Number(rows))}) x on true`;
});

/** A token's traders (docs/api.md "Traders, PnL and labels"), largest first by `sort`. */
export async function listTraders(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined; sort?: TraderSort | undefined },
): Promise<TradersPage> {
  const sort = input.sort ?? 'realized_pnl';
  const list = `traders:${input.address}:${sort}`;
  const key = decodeCursorIfAny(input.cursor, list, signedAmountAndAddressKey, ctx.cursorSecret);
  const rows = await traderRows(
    ctx.db,
    { address: input.address, value: key?.[0] ?? null, wallet: key?.[1] ?? null },
    `${sort}|${key ? 'after' : 'first'}:${input.limit + 1}`,
  );
  if (!rows[0]?.token) throw new AppError('not_found', `no launched token at ${input.address}`);
  const price = BigInt(rows[0].price ?? '0');
  const found = rows.filter((r) => r.wallet !== null) as (PositionRow & { wallet: string })[];
  const page = keysetPage(
    found,
    input.limit,
    (last, block) =>
      encodeCursor(
        list,
        [
          sort === 'realized_pnl' ? last.realized_pnl : sort === 'volume' ? last.volume : last.balance,
          last.wallet,
        ],
        ctx.cursorSecret,
        block,
      ),
    Number(rows[0]?.ib ?? 0),
  );
  return {
    items: page.rows.map((r) => ({ wallet: r.wallet, ...position(r, price) })),
    next_cursor: page.nextCursor,
  };
}

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

/** Page statements of a wallet's positions, by `first|after:rows`. */
const walletRows = compiledReads<
  PositionRow & { token_address: string; price: string; excluded: boolean; ib: string | number },
  'wallet' | 'after',
  string
>((param, variant) => {
  const [position, rows] = variant.split(':');
  return sql`select x.token_address, tk.current_price::text as price, tk.excluded, ${indexedThroughBlockSql} as ib, ${positionColumns}
          from (${walletPositionsSql(param, position === 'after', Number(rows))}) x
          join tokens tk on tk.address = x.token_address
          order by x.token_address`;
});

/**
 * A wallet's PnL per token it has a row of or holds, by token address. A token excluded by
 * moderation keeps its row (the trades happened, so does the realized PnL) but, as in holdings,
 * without a price or an unrealized PnL: moderation withdraws our valuation.
 */
export async function listWalletPnl(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined },
): Promise<WalletPnlPage> {
  const list = `pnl:${input.address}`;
  const after = decodeCursorIfAny(input.cursor, list, addressOnlyKey, ctx.cursorSecret);
  const rows = await walletRows(
    ctx.db,
    { wallet: input.address, after: after?.[0] ?? null },
    `${after ? 'after' : 'first'}:${input.limit + 1}`,
  );
  const page = keysetPage(
    rows,
    input.limit,
    (last, block) => encodeCursor(list, [last.token_address], ctx.cursorSecret, block),
    Number(rows[0]?.ib ?? 0),
  );
  return {
    items: page.rows.map((r) => {
      const price = BigInt(r.price);
      const row = { token: r.token_address, ...position(r, price) };
      return r.excluded ? { ...row, price: null, unrealized_pnl: null } : { ...row, price };
    }),
    next_cursor: page.nextCursor,
  };
}
