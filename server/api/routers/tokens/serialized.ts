import { sql } from 'drizzle-orm';
import type { HoldersPage, Pricing, TokenDetail, TradesPage } from '../../../../shared/api/tokens';
import { indexedThroughBlockSql } from '../../../db/checkpoint';
import { compiledRead, compiledReads } from '../../../db/compiled-read';
import { rowLimit } from '../../../db/row-limit';
import { AppError } from '../../../errors';
import { decodeCursorIfAny, encodeCursor } from '../../cursor';
import { amountAndAddressKey, chainPositionKey } from '../../cursor-keys';
import { jsonIntegerSql, jsonTextSql, type SerializedAnswer, serializedAnswer } from '../../rest/serialized';
import type { Context } from '../../trpc';
import { concentrationSql, riskSql } from './detail';
import { priceChange24hBpsColumn } from './rows';

/**
 * REST answers whose JSON PostgreSQL writes, byte for byte what serializing the structured answer
 * of the same read (market.ts, served to tRPC) writes: keys in the schema's order, amounts as
 * decimal text, integers as digits. Every value here is hex, digits or a fixed word, so nothing
 * needs escaping. A cheap read's own CPU was mostly the rows: postgres.js parsing each column,
 * the structured answer with its bigints, then `toJson` walking it again with a replacer
 * (docs/benchmarks.md); these answers arrive as one text column.
 */

const notFound = (address: string) => new AppError('not_found', `no launched token at ${address}`);

const text = jsonTextSql;
const integer = jsonIntegerSql;

/**
 * The detail (detail.ts, {@link getTokenDetail}) as JSON: the groups of toTokenDetail in their
 * order, metadata when a draft is bound, graduation when all of its facts are known, then the
 * supply shares and the risk summary from the same subqueries. Creator-supplied text (name,
 * symbol, description, links) goes through to_json, which escapes as JSON.stringify does
 * (`\"`, `\\`, the short escapes and `\u00xx` below U+0020; nothing else).
 */
const detailBody = compiledRead<{ ib: string | number; body: string }, 'address'>(
  (param) =>
    sql`select d.ib, '{"indexed_through_block":' || d.ib
          || ',"identity":{"address":"' || d.address || '","name":' || ${text('d.name')} || ',"symbol":' || ${text('d.symbol')}
          || ',"decimals":' || d.decimals || ',"total_supply":"' || d.total_supply || '"}'
          || ',"metadata":' || case when d.bound_draft is null then 'null' else
               '{"description":' || ${text('d.description')} || ',"image_url":' || ${text("'/objects/' || d.image_key")}
               || ',"website_url":' || ${text('d.website_url')} || ',"x_url":' || ${text('d.x_url')}
               || ',"telegram_url":' || ${text('d.telegram_url')} || ',"discord_url":' || ${text('d.discord_url')}
               || ',"draft_id":' || ${text('d.bound_draft')} || '}' end
          || ',"creation":{"creator":"' || d.creator || '","block_number":' || d.created_block
          || ',"block_timestamp":' || d.created_at || ',"transaction_hash":"' || d.created_transaction_hash
          || '","transaction_index":' || d.created_transaction_index || ',"log_index":' || d.created_log_index || '}'
          || ',"curve":{"lifecycle":"' || d.lifecycle || '","virtual_token_reserve":"' || d.virtual_token_reserve
          || '","virtual_reserve":"' || d.virtual_reserve || '","real_token_reserve":"' || d.real_token_reserve
          || '","real_reserve":"' || d.real_reserve || '","graduation_threshold":"' || d.graduation_threshold
          || '","progress_bps":' || d.progress_bps || '}'
          || ',"metrics":{"current_price":"' || d.current_price || '","price_change_24h_bps":' || ${integer('d.price_change')}
          || ',"market_cap":"' || d.market_cap || '","fully_diluted_value":"' || d.fully_diluted_value
          || '","volume_24h":"' || d.volume_24h || '","trades_24h":' || d.trades_24h || ',"traders_24h":' || d.traders_24h
          || ',"holders":' || d.holders || ',"last_trade_at":' || ${integer('d.last_trade_at')} || '}'
          || case when d.pool_address is not null and d.graduated_block is not null and d.graduated_at is not null
                   and d.graduated_transaction_hash is not null and d.graduation_token_amount is not null
                   and d.graduation_reserve_amount is not null
              then ',"graduation":{"pool_address":"' || d.pool_address || '","block_number":' || d.graduated_block
                   || ',"block_timestamp":' || d.graduated_at || ',"transaction_hash":"' || d.graduated_transaction_hash
                   || '","token_amount":"' || d.graduation_token_amount || '","reserve_amount":"' || d.graduation_reserve_amount || '"}'
              else '' end
          || ',"excluded":' || d.excluded::text
          || ',"concentration":{"top10_holders_bps":' || (d.concentration->>0) || ',"creator_bps":' || (d.concentration->>1)
          || ',"curve_bps":' || (d.concentration->>2) || ',"pool_bps":' || (d.concentration->>3)
          || ',"burned_bps":' || (d.concentration->>4) || '}'
          || ',"risk":{"sniper_bps":' || (d.risk->>0) || ',"sniper_wallets":' || (d.risk->>1)
          || ',"bundler_bps":' || (d.risk->>2) || ',"bundler_wallets":' || (d.risk->>3)
          || ',"creator_linked_bps":' || (d.risk->>4) || ',"creator_linked_wallets":' || (d.risk->>5)
          || ',"creator_sold_bps":' || (d.risk->>6) || '}}' as body
        from (select tokens.*, m.id as bound_draft, m.description, m.image_key, m.website_url, m.x_url, m.telegram_url, m.discord_url,
                     ${indexedThroughBlockSql} as ib, ${priceChange24hBpsColumn} as price_change,
                     ${concentrationSql} as concentration, ${riskSql} as risk
                from tokens left join metadata_drafts m on m.id = tokens.draft_id
               where tokens.address = ${param('address')} offset 0) d`,
);

/** {@link getTokenDetail} as JSON text: one statement, no row parsed. */
export async function getTokenDetailSerialized(
  ctx: Context,
  address: string,
): Promise<TokenDetail | SerializedAnswer> {
  const [row] = await detailBody(ctx.db, { address });
  if (!row) throw notFound(address);
  return serializedAnswer(row.body, Number(row.ib));
}

const pricingBody = compiledRead<{ ib: string | number; body: string }, 'address'>(
  (param) =>
    sql`select t.ib, '{"token_address":"' || t.address || '","current_price":"' || t.current_price
               || '","fully_diluted_value":"' || t.fully_diluted_value || '","source":"'
               || case when t.lifecycle = 'graduated' and t.last_trade_source = 'dex_v3' then 'indexed_v3_market' else 'indexed_v3_curve' end
               || '","indexed_through_block":' || t.ib || '}' as body
          from (select address, current_price, fully_diluted_value, lifecycle, last_trade_source, ${indexedThroughBlockSql} as ib
                  from tokens where address = ${param('address')} offset 0) t`,
);

/** {@link getPricing} as JSON text. */
export async function getPricingSerialized(
  ctx: Context,
  address: string,
): Promise<Pricing | SerializedAnswer> {
  const [row] = await pricingBody(ctx.db, { address });
  if (!row) throw notFound(address);
  return serializedAnswer(row.body, Number(row.ib));
}

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
  const limit = rowLimit(fetched - 1);
  return sql`select ${indexedThroughBlockSql} as ib, tk.address as token, p.items, p.n, p.last_block, p.last_log
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral (
            select string_agg('{"block_timestamp":' || block_timestamp || ',"token_address":"' || token_address
                     || '","trader":"' || trader || '","side":"' || case when side = 'sell' then 'sell' else 'buy' end
                     || '","token_amount":"' || token_amount || '","reserve_amount":"' || reserve_amount
                     || '","curve_value":"' || curve_value || '","protocol_fee":"' || protocol_fee
                     || '","creator_fee":"' || creator_fee || '","source":"' || case when source = 'dex_v3' then 'dex_v3' else 'curve' end
                     || '","block_number":' || block_number || ',"transaction_index":' || transaction_index
                     || ',"transaction_hash":"' || transaction_hash || '","log_index":' || log_index || '}', ','
                     order by n) filter (where n <= ${limit}) as items,
                   count(*) as n,
                   max(block_number) filter (where n = ${limit}) as last_block,
                   max(log_index) filter (where n = ${limit}) as last_log
              from (select *, row_number() over (order by block_number desc, log_index desc) as n
                      from (select block_timestamp, token_address, trader, side, token_amount, reserve_amount, curve_value, protocol_fee,
                                   creator_fee, source, block_number, transaction_index, transaction_hash, log_index
                              from trades where token_address = ${param('address')}
                               ${position === 'after' ? sql`and (block_number, log_index) < (${param('block')}, ${param('log')})` : sql``}
                             order by block_number desc, log_index desc limit ${rowLimit(fetched)}) page) numbered) p on true`;
});

/** {@link listTrades} as JSON text: one statement, no row parsed. */
export async function listTradesSerialized(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined },
): Promise<TradesPage | SerializedAnswer> {
  const list = `trades:${input.address}`;
  const key = decodeCursorIfAny(input.cursor, list, chainPositionKey, ctx.cursorSecret);
  const [row] = await tradeBodies(
    ctx.db,
    { address: input.address, block: key?.[0] ?? null, log: key?.[1] ?? null },
    `${key ? 'after' : 'first'}:${input.limit + 1}`,
  );
  if (!row?.token) throw notFound(input.address);
  const next =
    Number(row.n) > input.limit && row.last_block !== null && row.last_log !== null
      ? `"${encodeCursor(list, [Number(row.last_block), Number(row.last_log)], ctx.cursorSecret, Number(row.ib))}"`
      : 'null';
  return serializedAnswer(
    `{"indexed_through_block":${Number(row.ib)},"items":[${row.items ?? ''}],"next_cursor":${next}}`,
    Number(row.ib),
  );
}

/**
 * Page statements of holders as JSON (market.ts, {@link listHolders}), by `first|after:rows`:
 * the first `rows − 1` holders as the items' text with their share of the supply (basis points,
 * rounded down, as the structured answer's bigint division), the key of the last of them, and
 * whether one more follows.
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
  const limit = rowLimit(fetched - 1);
  return sql`select ${indexedThroughBlockSql} as ib, tk.address as token, p.items, p.n, p.last_balance, p.last_wallet
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral (
            select string_agg('{"wallet":"' || wallet || '","balance":"' || balance || '","share_bps":'
                     || case when tk.total_supply = 0 then 0 else div(balance * 10000, tk.total_supply) end || '}', ','
                     order by n) filter (where n <= ${limit}) as items,
                   count(*) as n,
                   max(balance::text) filter (where n = ${limit}) as last_balance,
                   max(wallet) filter (where n = ${limit}) as last_wallet
              from (select wallet, balance, row_number() over (order by balance desc, wallet desc) as n
                      from (select wallet, balance from balances where token_address = ${param('address')} and kind = 0
                               ${position === 'after' ? sql`and (balance, wallet) < (${param('balance')}::numeric, ${param('wallet')})` : sql``}
                             order by balance desc, wallet desc limit ${rowLimit(fetched)}) page) numbered) p on true`;
});

/** {@link listHolders} as JSON text: one statement, no row parsed. */
export async function listHoldersSerialized(
  ctx: Context,
  input: { address: string; limit: number; cursor?: string | undefined },
): Promise<HoldersPage | SerializedAnswer> {
  const list = `holders:${input.address}`;
  const key = decodeCursorIfAny(input.cursor, list, amountAndAddressKey, ctx.cursorSecret);
  const [row] = await holderBodies(
    ctx.db,
    { address: input.address, balance: key?.[0] ?? null, wallet: key?.[1] ?? null },
    `${key ? 'after' : 'first'}:${input.limit + 1}`,
  );
  if (!row?.token) throw notFound(input.address);
  const next =
    Number(row.n) > input.limit && row.last_balance !== null && row.last_wallet !== null
      ? `"${encodeCursor(list, [row.last_balance, row.last_wallet], ctx.cursorSecret, Number(row.ib))}"`
      : 'null';
  // The structured page does not say its block either: the same ETag, the same headers.
  return serializedAnswer(`{"items":[${row.items ?? ''}],"next_cursor":${next}}`);
}
