import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { AddressPageInput, BalancesPageInput } from '../../../../shared/api/common';
import { holderItem, pricing, trade } from '../../../../shared/api/tokens';
import { indexedThroughBlockSql } from '../../../db/checkpoint';
import { rowLimit } from '../../../db/row-limit';
import { amountAndAddressKey, chainPositionKey } from '../../cursor-keys';
import { jsonSql } from '../../rest/json-sql';
import { type SerializedAnswer, serializedAnswer } from '../../rest/serialized';
import type { Context } from '../../trpc';
import { rowByAddress, tokenNotFound, tokenPages } from '../json-reads';
import { itemRenderings, type TokenList, tokenExport } from '../token-exports';

/** Pricing, trades and holders, written as JSON by PostgreSQL (json-reads.ts). */

export const getPricing = rowByAddress(
  'tokens',
  'address, current_price, fully_diluted_value, lifecycle, last_trade_source',
  jsonSql(pricing, {
    token_address: 'r.address',
    current_price: 'r.current_price',
    fully_diluted_value: 'r.fully_diluted_value',
    // The spec's rule: the market's price only for a graduated token last traded in its pool.
    source: `case when r.lifecycle = 'graduated' and r.last_trade_source = 'dex_v3' then 'indexed_v3_market' else 'indexed_v3_curve' end`,
    indexed_through_block: 'r.ib',
  }),
  tokenNotFound,
);

// Each list's item columns write its JSON page and its CSV export (token-exports.ts).
const trades: TokenList<z.output<typeof chainPositionKey>, ''> = {
  ...itemRenderings(trade, {
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
  }),
  numbered: (
    param,
    after,
    rows,
  ) => sql`(select *, row_number() over (order by block_number desc, log_index desc) as n
          from (select block_timestamp, token_address, trader, side, token_amount, reserve_amount, curve_value, protocol_fee,
                       creator_fee, source, block_number, transaction_index, transaction_hash, log_index
                  from trades where token_address = ${param('address')}
                   ${after ? sql`and (block_number, log_index) < (${param('k0')}, ${param('k1')})` : sql``}
                 order by block_number desc, log_index desc limit ${rowLimit(rows)}) page)`,
  keys: () => ['x.block_number', 'x.log_index'],
  keySchema: chainPositionKey,
  cursorKey: ([block, log]) => [Number(block), Number(log)],
  stable: true,
};

const tradePages = tokenPages(trades);
const tradesList = (input: AddressPageInput) => ({ list: `trades:${input.address}`, order: '' as const });
export const tradesExport = tokenExport('trades', trades, tradesList);

/** Trades in reverse chain order with the checkpoint they were read at, in one statement. */
export async function listTrades(ctx: Context, input: AddressPageInput): Promise<SerializedAnswer> {
  const { page, block } = await tradePages(ctx, input, tradesList(input).list, '');
  return serializedAnswer(`{"indexed_through_block":${block},${page}}`, block);
}

const holders: TokenList<z.output<typeof amountAndAddressKey>, ''> = {
  ...itemRenderings(holderItem, {
    wallet: 'wallet',
    balance: 'balance',
    // Of the supply, in basis points rounded down.
    share_bps: 'case when tk.total_supply = 0 then 0 else div(balance * 10000, tk.total_supply) end',
  }),
  numbered: (param, after, rows, _order, atBlock) => {
    const from = after ? sql`and (balance, wallet) < (${param('k0')}::numeric, ${param('k1')})` : sql``;
    const limit = rowLimit(rows);
    if (!atBlock)
      return sql`(select wallet, balance, row_number() over (order by balance desc, wallet desc) as n
          from (select wallet, balance from balances where token_address = ${param('address')} and kind = 0 ${from}
                 order by balance desc, wallet desc limit ${limit}) page)`;
    // At a block (docs/decisions.md, "Holders at any block"): the closed intervals of the token's
    // history segment holding the block that span it, and, in the current segment, the open ones
    // (`balances` rows) opened by then; each walked in page order, merged. No interval closes
    // after the indexed block: at it, the segment is not walked at all.
    const block = param('block');
    return sql`(select wallet, balance, row_number() over (order by balance desc, wallet desc) as n
          from ((select wallet, balance from balance_history
                   where ${block} < ${indexedThroughBlockSql} and token_address = ${param('address')} and kind = 0
                     and segment = case when ${block} >= tk.history_segment then tk.history_segment
                       else (select max(s.segment) from balance_history s
                              where s.token_address = ${param('address')} and s.kind = 0 and s.segment <= ${block}) end
                     and from_block <= ${block} and to_block > ${block} ${from}
                   order by balance desc, wallet desc limit ${limit})
                union all
                (select wallet, balance from balances
                   where token_address = ${param('address')} and kind = 0 and since_block <= ${block}
                     and tk.history_segment <= ${block} ${from}
                   order by balance desc, wallet desc limit ${limit})
                order by balance desc, wallet desc limit ${limit}) page)`;
  },
  keys: () => ['x.balance::text', 'x.wallet'],
  keySchema: amountAndAddressKey,
  stable: false,
};

const holderPages = tokenPages(holders);
const holdersList = (input: AddressPageInput) => ({ list: `holders:${input.address}`, order: '' as const });
export const holdersExport = tokenExport('holders', holders, holdersList);

/** Holders, largest balance first; at the end of `block` when given. */
export async function listHolders(ctx: Context, input: BalancesPageInput): Promise<SerializedAnswer> {
  const { page } = await holderPages(ctx, input, holdersList(input).list, '');
  // The holders page does not say its block (its schema has no indexed_through_block).
  return serializedAnswer(`{${page}}`);
}
