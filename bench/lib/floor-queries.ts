/**
 * The floor's statements: one per route class, each the plainest SQL that reads what Launchdex's
 * answer holds (same tables, same indexes, same `indexed_through_block` subquery, so the same
 * snapshot). Columns are named as the answer's fields; int8 arrives as a number and numeric as
 * decimal text (see bench-floor.ts), which is what the answers carry.
 */

import { activityKinds } from '../../shared/api/enums';

const indexedThroughBlock = `coalesce((select indexed_through_block from indexer_checkpoint where id = 'main'), 0)`;

/** The 24 h price change of a list row or detail (server/api/routers/tokens/rows.ts). */
const priceChange24hBps = `(
  select greatest(-2000000000, least(2000000000, round((t.current_price - ref.price) * 10000 / ref.price)))::int
    from (select coalesce(
      (select c.close from candles c
        where c.token_address = t.address and c.interval_seconds = 60
          and c.bucket_start <= (select block_timestamp from indexer_checkpoint where id = 'main') - 86400
        order by c.bucket_start desc limit 1),
      (select c.open from candles c
        where c.token_address = t.address and c.interval_seconds = 60
        order by c.bucket_start asc limit 1)) as price offset 0) ref
   where ref.price > 0)`;

/** A trader's position, in the answer's order (server/api/traders/read.ts); labels from the flags. */
const position = `x.bought, x.sold, x.quote_spent, x.quote_received, x.balance, x.cost_basis, x.realized_pnl,
  div(greatest(x.balance, 0) * t.current_price, 1000000000000000000) - x.cost_basis as unrealized_pnl,
  x.buys, x.sells, x.first_trade_block, x.first_trade_at, x.last_trade_block, x.last_trade_at,
  x.is_creator, x.sniper, x.bundler, x.creator_linked`;

/** The detail's supply shares (basis points of supply, rounded down), as Launchdex reads them. */
const share = (amount: string) => `div(${amount} * 10000, t.total_supply)::int`;
const accounts = (kind: number) =>
  share(
    `coalesce((select sum(balance) from balances where token_address = t.address and kind = ${kind}), 0)`,
  );
const concentration = `${share(`(select coalesce(sum(h.balance), 0) from (select balance from balances
    where token_address = t.address and kind = 0 order by balance desc, wallet desc limit 10) h)`)} as top10_holders_bps,
  ${share('coalesce((select balance from balances where token_address = t.address and wallet = t.creator), 0)')} as creator_bps,
  ${accounts(1)} as curve_bps, ${accounts(2)} as pool_bps, ${accounts(3)} as burned_bps`;

/** The detail's risk summary from the token's trader_totals row (all zeros without one). */
const labelled = (flag: string, column: string) =>
  `coalesce(div(r.${column}_balance * 10000, t.total_supply), 0)::int as ${flag}_bps,
    coalesce(r.${column}_wallets, 0) as ${flag}_wallets`;
const risk = `select ${labelled('sniper', 'sniper')}, ${labelled('bundler', 'bundler')}, ${labelled('creator_linked', 'linked')},
    (case when r.cluster_bought > 0 then div(least(r.cluster_sold, r.cluster_bought) * 10000, r.cluster_bought) else 0 end)::int
      as creator_sold_bps
  from (select 1) one left join trader_totals r on r.token_address = t.address`;

/** A token list item's fields, in the answer's order. */
const listItem = `t.address, t.name, t.symbol, '/objects/' || d.image_key as image_url, t.creator, t.created_at,
  t.lifecycle, t.progress_bps, t.current_price, ${priceChange24hBps} as price_change_24h_bps, t.market_cap,
  t.volume_24h, t.trades_24h, t.holders`;

const listFrom = 'from tokens t left join metadata_drafts d on d.id = t.draft_id';

export const floorStatements = {
  /** no parameters */
  newest: `select ${listItem}, ${indexedThroughBlock} as ib, t.created_block, t.created_log_index ${listFrom}
    where not t.excluded order by t.created_block desc, t.created_log_index desc limit {limit}`,
  /** $1 block, $2 log index of the cursor */
  newestAfter: `select ${listItem}, ${indexedThroughBlock} as ib, t.created_block, t.created_log_index ${listFrom}
    where not t.excluded and (t.created_block, t.created_log_index) < ($1, $2)
    order by t.created_block desc, t.created_log_index desc limit {limit}`,
  /** no parameters */
  top: `select ${listItem}, ${indexedThroughBlock} as ib ${listFrom} where not t.excluded order by t.market_cap desc, t.address desc limit {limit}`,
  /** no parameters */
  near: `select ${listItem}, ${indexedThroughBlock} as ib ${listFrom} where not t.excluded and t.lifecycle = 'curve'
    order by t.progress_bps desc, t.address desc limit {limit}`,
  /** no parameters */
  linked: `select ${listItem}, ${indexedThroughBlock} as ib, t.created_block, t.created_log_index ${listFrom}
    where not t.excluded and t.has_links order by t.created_block desc, t.created_log_index desc limit {limit}`,
  /** no parameters */
  trending: `select ${listItem}, ${indexedThroughBlock} as ib, t.trending_score ${listFrom}
    where not t.excluded and t.trending_score > 0 order by t.trending_score desc, t.address desc limit {limit}`,
  /**
   * $1 LIKE pattern, $2 the normalized search (exact symbol); a search that is no hex prefix.
   * The matches are grouped twice, as Launchdex's statement groups them (its second group merges
   * address matches): grouped once, PostgreSQL estimated some five-letter prefixes at 30,000
   * matches for 404 and hashed a parallel scan of every token (~200 ms where the shape below
   * takes 5), so the floor's search measured its plan rather than a bare server.
   */
  search: `select ${listItem}, ${indexedThroughBlock} as ib, ranked.rank
    from (select address, min(rank) as rank
            from (select token_address as address, min(case when kind = 0 and term = $2 then 0 else kind + 1 end) as rank
                    from token_search_terms where term like $1 group by token_address) m
           group by address) ranked
    join tokens t on t.address = ranked.address left join metadata_drafts d on d.id = t.draft_id
    where not t.excluded order by ranked.rank, t.market_cap desc, t.address desc limit {limit}`,
  /** $1 creator */
  creatorTokens: `select ${listItem}, ${indexedThroughBlock} as ib, t.created_block, t.created_log_index ${listFrom}
    where t.creator = $1 and not t.excluded order by t.created_block desc, t.created_log_index desc limit {limit}`,
  /** $1 token */
  detail: `select ${indexedThroughBlock} as ib, t.address, t.name, t.symbol, t.decimals, t.total_supply,
      d.id as draft_id, d.description, '/objects/' || d.image_key as image_url, d.website_url, d.x_url, d.telegram_url, d.discord_url,
      t.creator, t.created_block, t.created_at, t.created_transaction_hash, t.created_transaction_index, t.created_log_index,
      t.lifecycle, t.virtual_token_reserve, t.virtual_reserve, t.real_token_reserve, t.real_reserve, t.graduation_threshold, t.progress_bps,
      t.current_price, ${priceChange24hBps} as price_change_24h_bps, t.market_cap, t.fully_diluted_value, t.volume_24h, t.trades_24h,
      t.traders_24h, t.holders, t.last_trade_at,
      t.pool_address, t.graduated_block, t.graduated_at, t.graduated_transaction_hash, t.graduation_token_amount, t.graduation_reserve_amount,
      t.excluded, ${concentration}, rk.*
    ${listFrom} left join lateral (${risk}) rk on true where t.address = $1`,
  /** $1 token */
  pricing: `select address as token_address, current_price, fully_diluted_value,
      case when lifecycle = 'graduated' and last_trade_source = 'dex_v3' then 'indexed_v3_market' else 'indexed_v3_curve' end as source,
      ${indexedThroughBlock} as indexed_through_block
    from tokens where address = $1`,
  /**
   * $1 token, $2 interval seconds. PostgreSQL writes the items' JSON (digits only, nothing to
   * escape), oldest first: parsing 1,000 rows of 7 columns in postgres.js and stringifying them
   * costs ~5 ms of the server's CPU per answer, this ~1 ms of it plus ~3 ms of PostgreSQL's.
   */
  chart: `select ${indexedThroughBlock} as ib,
      (select '[' || coalesce(string_agg('{"time":' || bucket_start || ',"open":"' || open || '","high":"' || high
                || '","low":"' || low || '","close":"' || close || '","volume":"' || volume || '","trades":' || trades || '}',
                ',' order by bucket_start), '') || ']'
         from (select bucket_start, open, high, low, close, volume, trades from candles
                where token_address = t.address and interval_seconds = $2 order by bucket_start desc limit {limit}) c) as items
    from tokens t where t.address = $1`,
  /** $1 token */
  trades: `select ${indexedThroughBlock} as ib, x.*
    from tokens t left join lateral (
      select block_timestamp, token_address, trader, side, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee,
             source, block_number, transaction_index, transaction_hash, log_index
        from trades where token_address = t.address order by block_number desc, log_index desc limit {limit}) x on true
    where t.address = $1`,
  /** $1 token */
  // One walk of chain_events_token_kind_idx (token, kind, block, log) per kind, merged, as
  // Launchdex's activity page reads it (the index has no (token, block, log) order of its own).
  activity: `select ${indexedThroughBlock} as ib, e.*
    from tokens t left join lateral (
      select * from (${activityKinds
        .map(
          (
            kind,
          ) => `(select kind, block_number, block_timestamp, block_hash, transaction_hash, transaction_index, log_index, data
        from chain_events where token_address = t.address and kind = '${kind}'
       order by block_number desc, log_index desc limit {limit})`,
        )
        .join(' union all ')}) k
       order by block_number desc, log_index desc limit {limit}) e on true
    where t.address = $1`,
  /** $1 token */
  holders: `select ${indexedThroughBlock} as ib, b.wallet, b.balance, coalesce(div(b.balance * 10000, nullif(t.total_supply, 0))::int, 0) as share_bps
    from tokens t left join lateral (
      select wallet, balance from balances where token_address = t.address and kind = 0
       order by balance desc, wallet desc limit {limit}) b on true
    where t.address = $1`,
  /**
   * $1 token, $2 block: its holders at the end of the block, as Launchdex reads them (the
   * segment of the token's balance history holding the block, walked in page order; in the
   * current segment the balances rows opened by then too; docs/decisions.md, "Holders at any block").
   */
  holdersAt: `select ${indexedThroughBlock} as ib, b.wallet, b.balance, coalesce(div(b.balance * 10000, nullif(t.total_supply, 0))::int, 0) as share_bps
    from tokens t left join lateral (
      select wallet, balance from (
        (select wallet, balance from balance_history
          where $2 < ${indexedThroughBlock} and token_address = t.address and kind = 0 and from_block <= $2 and to_block > $2
            and segment = case when $2 >= t.history_segment then t.history_segment
              else (select max(segment) from balance_history s where s.token_address = t.address and s.kind = 0 and s.segment <= $2) end
          order by balance desc, wallet desc limit {limit})
        union all
        (select wallet, balance from balances
          where token_address = t.address and kind = 0 and since_block <= $2 and t.history_segment <= $2
          order by balance desc, wallet desc limit {limit})) h
       order by balance desc, wallet desc limit {limit}) b on true
    where t.address = $1`,
  /** $1 creator */
  creator: `select address, tokens_launched, tokens_graduated, first_launch_at, last_launch_at, total_volume,
      ${indexedThroughBlock} as indexed_through_block
    from creators where address = $1`,
  /** $1 wallet */
  holdings: `select b.balance, ${listItem}, ${indexedThroughBlock} as ib,
      case when t.excluded then null else t.current_price end as price,
      case when t.excluded then null else div(b.balance * t.current_price, 1000000000000000000) end as value
    from balances b join tokens t on t.address = b.token_address left join metadata_drafts d on d.id = t.draft_id
    where b.wallet = $1 order by b.token_address limit {limit}`,
  /** $1 token: its traders by realized PnL (traders_pnl_idx), unrealized PnL at its current price */
  traders: `select ${indexedThroughBlock} as ib, x.wallet, ${position}
    from tokens t left join lateral (
      select * from traders where token_address = t.address order by realized_pnl desc, wallet desc limit {limit}) x on true
    where t.address = $1`,
  /**
   * $1 wallet: its positions by token address (the traders key) and, for tokens it holds
   * without a row, its balance at zero cost (balances_wallet_idx), each at its token's price
   */
  pnl: `select x.token_address as token, t.current_price as price, ${indexedThroughBlock} as ib, ${position}
    from ((select token_address, bought, sold, quote_spent, quote_received, balance, cost_basis, realized_pnl, buys,
                  sells, first_trade_block, first_trade_at, last_trade_block, last_trade_at, is_creator, sniper,
                  bundler, creator_linked
             from traders where wallet = $1 order by token_address limit {limit})
          union all
          (select b.token_address, 0, 0, 0, 0, b.balance, 0, 0, 0, 0, null, null, null, null, c.creator = $1,
                  false, false, false
             from balances b join tokens c on c.address = b.token_address
            where b.wallet = $1 and b.kind = 0
              and not exists (select 1 from traders r where r.wallet = $1 and r.token_address = b.token_address)
            order by b.token_address limit {limit})) x
    join tokens t on t.address = x.token_address
    order by x.token_address limit {limit}`,
} as const;

export type FloorStatement = keyof typeof floorStatements;

const texts = new Map<string, string>();

/**
 * The text of a statement with its row limit written in. A `limit $n` parameter would make
 * PostgreSQL plan every execution anew: the generic plan of an unknown limit is a full sort, so
 * the plan cache keeps choosing custom plans (measured: `pg_prepared_statements.custom_plans`
 * grows, `generic_plans` stays 0, ~1 ms of planning per list request). A literal limit gives one
 * statement per limit value, each planned once per connection.
 */
export function floorStatementText(statement: FloorStatement, limit: number): string {
  const key = `${statement}:${limit}`;
  let text = texts.get(key);
  if (text === undefined) {
    text = floorStatements[statement].replaceAll('{limit}', String(limit));
    texts.set(key, text);
  }
  return text;
}
