import { sql } from 'drizzle-orm';
import { holderItem, pricing, trade } from '../../../../shared/api/tokens';
import { indexedThroughBlockSql } from '../../../db/checkpoint';
import { compiledRead, compiledReads } from '../../../db/compiled-read';
import { rowLimit } from '../../../db/row-limit';
import { AppError } from '../../../errors';
import { decodeCursorIfAny, encodeCursor } from '../../cursor';
import { amountAndAddressKey, chainPositionKey } from '../../cursor-keys';
import { jsonPageSql, jsonSql, pageJson } from '../../rest/json-sql';
import { type SerializedAnswer, serializedAnswer } from '../../rest/serialized';
import type { Context } from '../../trpc';

/**
 * Pricing, trades and holders, written as JSON by PostgreSQL from their schemas (json-sql.ts):
 * a cheap read's own CPU was mostly the rows (postgres.js parsing each column, the structured
 * answer with its bigints, then serializing it again; docs/benchmarks.md); these arrive as text.
 */

const notFound = (address: string) => new AppError('not_found', `no launched token at ${address}`);

const pricingBody = compiledRead<{ ib: string | number; body: string }, 'address'>(
  (param) =>
    sql`select t.ib, ${jsonSql(pricing, {
      token_address: 't.address',
      current_price: 't.current_price',
      fully_diluted_value: 't.fully_diluted_value',
      // The spec's rule: the market's price only for a graduated token last traded in its pool.
      source: `case when t.lifecycle = 'graduated' and t.last_trade_source = 'dex_v3' then 'indexed_v3_market' else 'indexed_v3_curve' end`,
      indexed_through_block: 't.ib',
    })} as body
          from (select address, current_price, fully_diluted_value, lifecycle, last_trade_source, ${indexedThroughBlockSql} as ib
                  from tokens where address = ${param('address')} offset 0) t`,
);

export async function getPricing(ctx: Context, address: string): Promise<SerializedAnswer> {
  const [row] = await pricingBody(ctx.db, { address });
  if (!row) throw notFound(address);
  return serializedAnswer(row.body, Number(row.ib));
}

const tradeJson = jsonSql(trade, {
  block_timestamp: 'block_timestamp',
  token_address: 'token_address',
  trader: 'trader',
  side: `case when side = 'sell' then 'sell' else 'buy' end`,
  token_amount: 'token_amount',
  reserve_amount: 'reserve_amount',
  curve_value: 'curve_value',
  protocol_fee: 'protocol_fee',
  creator_fee: 'creator_fee',
  source: `case when source = 'dex_v3' then 'dex_v3' else 'curve' end`,
  block_number: 'block_number',
  transaction_index: 'transaction_index',
  transaction_hash: 'transaction_hash',
  log_index: 'log_index',
});

/**
 * Page statements of trades as JSON, by `first|after:rows`: the first `rows − 1` trades as the
 * items' text, the key of the last of them, and whether one more follows (the next cursor).
 */
const tradeBodies = compiledReads<
  {
    ib: string | number;
    token: string | null;
    items: string | null;
    n: string | number;
    last_block: string | number | null;
    last_log: string | number | null;
  },
  'address' | 'block' | 'log',
  string
>((param, variant) => {
  const [position, rows] = variant.split(':');
  const fetched = Number(rows);
  const numbered = sql`(select *, row_number() over (order by block_number desc, log_index desc) as n
          from (select block_timestamp, token_address, trader, side, token_amount, reserve_amount, curve_value, protocol_fee,
                       creator_fee, source, block_number, transaction_index, transaction_hash, log_index
                  from trades where token_address = ${param('address')}
                   ${position === 'after' ? sql`and (block_number, log_index) < (${param('block')}, ${param('log')})` : sql``}
                 order by block_number desc, log_index desc limit ${rowLimit(fetched)}) page)`;
  return sql`select ${indexedThroughBlockSql} as ib, tk.address as token, p.items, p.n, p.last_block, p.last_log
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral ${jsonPageSql(tradeJson, numbered, fetched - 1, { block: 'x.block_number', log: 'x.log_index' })} p on true`;
});

/** Trades in reverse chain order with the checkpoint they were read at, in one statement. */
export async function listTrades(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined },
): Promise<SerializedAnswer> {
  const list = `trades:${input.address}`;
  const key = decodeCursorIfAny(input.cursor, list, chainPositionKey, ctx.cursorSecret);
  const [row] = await tradeBodies(
    ctx.db,
    { address: input.address, block: key?.[0] ?? null, log: key?.[1] ?? null },
    `${key ? 'after' : 'first'}:${input.limit + 1}`,
  );
  if (!row?.token) throw notFound(input.address);
  const block = Number(row.ib);
  const page = pageJson(row, input.limit, [row.last_block, row.last_log], () =>
    encodeCursor(list, [Number(row.last_block), Number(row.last_log)], ctx.cursorSecret, block),
  );
  return serializedAnswer(`{"indexed_through_block":${block},${page}}`, block);
}

const holderJson = jsonSql(holderItem, {
  wallet: 'wallet',
  balance: 'balance',
  // Of the supply, in basis points rounded down.
  share_bps: 'case when tk.total_supply = 0 then 0 else div(balance * 10000, tk.total_supply) end',
});

/**
 * Page statements of holders as JSON ({@link listHolders}), by `first|after:rows`: the first
 * `rows − 1` holders as the items' text with their share of the supply (basis points, rounded
 * down), the key of the last of them, and whether one more follows.
 */
const holderBodies = compiledReads<
  {
    ib: string | number;
    token: string | null;
    items: string | null;
    n: string | number;
    last_balance: string | null;
    last_wallet: string | null;
  },
  'address' | 'balance' | 'wallet',
  string
>((param, variant) => {
  const [position, rows] = variant.split(':');
  const fetched = Number(rows);
  const numbered = sql`(select wallet, balance, row_number() over (order by balance desc, wallet desc) as n
          from (select wallet, balance from balances where token_address = ${param('address')} and kind = 0
                   ${position === 'after' ? sql`and (balance, wallet) < (${param('balance')}::numeric, ${param('wallet')})` : sql``}
                 order by balance desc, wallet desc limit ${rowLimit(fetched)}) page)`;
  return sql`select ${indexedThroughBlockSql} as ib, tk.address as token, p.items, p.n, p.last_balance, p.last_wallet
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral ${jsonPageSql(holderJson, numbered, fetched - 1, { balance: 'x.balance::text', wallet: 'x.wallet' })} p on true`;
});

/** Holders, largest balance first. */
export async function listHolders(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined },
): Promise<SerializedAnswer> {
  const list = `holders:${input.address}`;
  const key = decodeCursorIfAny(input.cursor, list, amountAndAddressKey, ctx.cursorSecret);
  const [row] = await holderBodies(
    ctx.db,
    { address: input.address, balance: key?.[0] ?? null, wallet: key?.[1] ?? null },
    `${key ? 'after' : 'first'}:${input.limit + 1}`,
  );
  if (!row?.token) throw notFound(input.address);
  const page = pageJson(row, input.limit, [row.last_balance, row.last_wallet], () =>
    encodeCursor(
      list,
      [row.last_balance as string, row.last_wallet as string],
      ctx.cursorSecret,
      Number(row.ib),
    ),
  );
  // The holders page does not say its block (its schema has no indexed_through_block).
  return serializedAnswer(`{${page}}`);
}
