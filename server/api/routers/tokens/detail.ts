import { sql } from 'drizzle-orm';
import { tokenDetail } from '../../../../shared/api/tokens';
import { indexedThroughBlockSql } from '../../../db/checkpoint';
import { compiledRead } from '../../../db/compiled-read';
import { frozenSql } from '../../../db/frozen-sql';
import { balanceKind } from '../../../db/schema';
import { AppError } from '../../../errors';
import { jsonSql } from '../../rest/json-sql';
import { type SerializedAnswer, serializedAnswer } from '../../rest/serialized';
import type { Context } from '../../trpc';
import { priceChange24hBpsColumn } from './rows';

/**
 * Supply shares from the indexed balances, in one scalar subquery per detail read: the 10 largest
 * holders (a walk of balances_holders_idx), the creator's wallet (the primary key), and the curve,
 * pool and burn rows apart (balances_accounts_idx: a token has a handful of them, whatever its
 * holder count). Basis points of total supply, rounded down (integer division).
 */
export const concentrationSql = frozenSql(sql`(
  select json_build_array(
    div((select coalesce(sum(h.balance), 0) from (select balance from balances
       where token_address = tokens.address and kind = ${balanceKind.holder}
       order by balance desc, wallet desc limit 10) h) * 10000, tokens.total_supply),
    div(coalesce((select balance from balances where token_address = tokens.address and wallet = tokens.creator), 0) * 10000, tokens.total_supply),
    div(coalesce(sum(a.balance) filter (where a.kind = ${balanceKind.curve}), 0) * 10000, tokens.total_supply),
    div(coalesce(sum(a.balance) filter (where a.kind = ${balanceKind.pool}), 0) * 10000, tokens.total_supply),
    div(coalesce(sum(a.balance) filter (where a.kind = ${balanceKind.burn}), 0) * 10000, tokens.total_supply))
  from balances a where a.token_address = tokens.address and a.kind <> ${balanceKind.holder})`);

/**
 * The risk summary from the token's one `trader_totals` row, which the indexer keeps from its
 * labelled `traders` rows (write-traders.ts): the same cost however many wallets carry a label.
 * A token without one has no labelled wallet and a cluster that never traded: all zeros.
 */
export const riskSql = frozenSql(sql`coalesce((
  select json_build_array(
    div(r.sniper_balance * 10000, tokens.total_supply), r.sniper_wallets,
    div(r.bundler_balance * 10000, tokens.total_supply), r.bundler_wallets,
    div(r.linked_balance * 10000, tokens.total_supply), r.linked_wallets,
    case when r.cluster_bought > 0 then div(least(r.cluster_sold, r.cluster_bought) * 10000, r.cluster_bought) else 0 end)
  from trader_totals r where r.token_address = tokens.address), json_build_array(0, 0, 0, 0, 0, 0, 0))`);

/**
 * One token with every group of DESIGN.md section 6, written as JSON by PostgreSQL in one
 * statement. Excluded tokens still answer (with `excluded: true`): moderation hides them from
 * lists, it does not pretend they do not exist.
 */
const detailBody = compiledRead<{ ib: string | number; body: string }, 'address'>(
  (param) =>
    sql`select d.ib, ${jsonSql(tokenDetail, {
      indexed_through_block: 'd.ib',
      identity: {
        address: 'd.address',
        name: 'd.name',
        symbol: 'd.symbol',
        decimals: 'd.decimals',
        total_supply: 'd.total_supply',
      },
      metadata: {
        when: 'd.bound_draft is not null',
        description: 'd.description',
        image_url: "'/objects/' || d.image_key",
        website_url: 'd.website_url',
        x_url: 'd.x_url',
        telegram_url: 'd.telegram_url',
        discord_url: 'd.discord_url',
        draft_id: 'd.bound_draft',
      },
      creation: {
        creator: 'd.creator',
        block_number: 'd.created_block',
        block_timestamp: 'd.created_at',
        transaction_hash: 'd.created_transaction_hash',
        transaction_index: 'd.created_transaction_index',
        log_index: 'd.created_log_index',
      },
      curve: {
        lifecycle: 'd.lifecycle',
        virtual_token_reserve: 'd.virtual_token_reserve',
        virtual_reserve: 'd.virtual_reserve',
        real_token_reserve: 'd.real_token_reserve',
        real_reserve: 'd.real_reserve',
        graduation_threshold: 'd.graduation_threshold',
        progress_bps: 'd.progress_bps',
      },
      metrics: {
        current_price: 'd.current_price',
        price_change_24h_bps: 'd.price_change',
        market_cap: 'd.market_cap',
        fully_diluted_value: 'd.fully_diluted_value',
        volume_24h: 'd.volume_24h',
        trades_24h: 'd.trades_24h',
        traders_24h: 'd.traders_24h',
        holders: 'd.holders',
        last_trade_at: 'd.last_trade_at',
      },
      graduation: {
        // Only once every fact of the graduation is indexed.
        when: `d.pool_address is not null and d.graduated_block is not null and d.graduated_at is not null
               and d.graduated_transaction_hash is not null and d.graduation_token_amount is not null
               and d.graduation_reserve_amount is not null`,
        pool_address: 'd.pool_address',
        block_number: 'd.graduated_block',
        block_timestamp: 'd.graduated_at',
        transaction_hash: 'd.graduated_transaction_hash',
        token_amount: 'd.graduation_token_amount',
        reserve_amount: 'd.graduation_reserve_amount',
      },
      concentration: {
        top10_holders_bps: 'd.concentration->>0',
        creator_bps: 'd.concentration->>1',
        curve_bps: 'd.concentration->>2',
        pool_bps: 'd.concentration->>3',
        burned_bps: 'd.concentration->>4',
      },
      risk: {
        sniper_bps: 'd.risk->>0',
        sniper_wallets: 'd.risk->>1',
        bundler_bps: 'd.risk->>2',
        bundler_wallets: 'd.risk->>3',
        creator_linked_bps: 'd.risk->>4',
        creator_linked_wallets: 'd.risk->>5',
        creator_sold_bps: 'd.risk->>6',
      },
      excluded: 'd.excluded',
    })} as body
        from (select tokens.*, m.id as bound_draft, m.description, m.image_key, m.website_url, m.x_url, m.telegram_url, m.discord_url,
                     ${indexedThroughBlockSql} as ib, ${priceChange24hBpsColumn} as price_change,
                     ${concentrationSql} as concentration, ${riskSql} as risk
                from tokens left join metadata_drafts m on m.id = tokens.draft_id
               where tokens.address = ${param('address')} offset 0) d`,
);

export async function getTokenDetail(ctx: Context, address: string): Promise<SerializedAnswer> {
  const [row] = await detailBody(ctx.db, { address });
  if (!row) throw new AppError('not_found', `no launched token at ${address}`);
  return serializedAnswer(row.body, Number(row.ib));
}
