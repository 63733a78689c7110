import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { AddressPageInput } from '../../../../shared/api/common';
import { holderItem, pricing, trade } from '../../../../shared/api/tokens';
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
  numbered: (
    param,
    after,
    rows,
  ) => sql`(select wallet, balance, row_number() over (order by balance desc, wallet desc) as n
          from (select wallet, balance from balances where token_address = ${param('address')} and kind = 0
                   ${after ? sql`and (balance, wallet) < (${param('k0')}::numeric, ${param('k1')})` : sql``}
                 order by balance desc, wallet desc limit ${rowLimit(rows)}) page)`,
  keys: () => ['x.balance::text', 'x.wallet'],
  keySchema: amountAndAddressKey,
  stable: false,
};

const holderPages = tokenPages(holders);
const holdersList = (input: AddressPageInput) => ({ list: `holders:${input.address}`, order: '' as const });
export const holdersExport = tokenExport('holders', holders, holdersList);

/** Holders, largest balance first. */
export async function listHolders(ctx: Context, input: AddressPageInput): Promise<SerializedAnswer> {
  const { page } = await holderPages(ctx, input, holdersList(input).list, '');
  // The holders page does not say its block (its schema has no indexed_through_block).
  return serializedAnswer(`{${page}}`);
}
