/**
 * The SQL of `npm run seed:scale`: synthetic but well-formed projections generated inside
 * PostgreSQL from generate_series (no rows cross the socket). Every generator is a pure function
 * of the row number, so chunks can run in any order on any connection, and the events of a
 * trade are generated from the same formulas as the trade.
 *
 * Shape of the data: token i (address 0x…i) is created at block 1000 + i by creator i mod 50,000;
 * every 20th token graduated, every 11th has bound metadata with links. Trade i lands at block
 * 5,000,000 + i/50 (10 s blocks, 50 trades each); token 1 takes 6 % of all trades, tokens
 * 1–1,000 another 44 % spread over the whole period, and the other half comes in bursts: every
 * 1,000 trades (200 s), 50 tokens of the long tail get about 10 trades each, so at 20M trades
 * every token has had its burst (as most launches trade briefly, then never again; it also keeps
 * their candles few). Wallet i mod 199,999 trades, so each wallet's ~100 trades spread over ~95
 * tokens (199,999 is prime to 100 and 1,000).
 */

import { PROJECTION_VERSION } from '../../server/db/projection-tables';

/** Bumped whenever the generated data changes shape, so `npm run bench` reseeds older databases. */
export const SEED_VERSION = 5;

const hex = (value: string, width: number, pad = '0') => `'0x' || lpad(to_hex(${value}), ${width}, '${pad}')`;
export const tokenAddressSql = (index: string) => hex(index, 40);
const words = `array['moon','frog','cat','doge','whale','pepe','otter','rocket','panda','goose','banana','wizard','shiba','based','turbo','giga']`;

/** Block and time of the indexed head after `tradeCount` trades. */
export function headOf(tradeCount: number): { block: number; timestamp: number } {
  const block = Math.floor(tradeCount / 50);
  return { block: 5_000_000 + block, timestamp: 1_760_000_000 + block * 10 };
}

/** Tokens [from, to]. */
export function insertTokens(from: number, to: number, tradeCount: number): string {
  const head = headOf(tradeCount);
  return `insert into tokens (address, curve_address, creator, name, symbol, name_search, symbol_search, total_supply, metadata_hash,
      created_block, created_block_hash, created_at, created_transaction_hash, created_transaction_index, created_log_index,
      lifecycle, virtual_token_reserve, virtual_reserve, real_token_reserve, real_reserve, graduation_threshold, curve_supply,
      protocol_fee_bps, creator_fee_bps, progress_bps, pool_address, graduated_block, graduated_at, graduated_transaction_hash,
      graduation_token_amount, graduation_reserve_amount, current_price, market_cap, fully_diluted_value, volume_24h, trades_24h,
      traders_24h, trending_score, trade_count, total_volume, holders, last_trade_at, last_trade_source, draft_id, has_links)
    select ${tokenAddressSql('i')}, ${hex('i + 100000000', 40)}, ${hex('i % 50000 + 200000000', 40)},
           initcap(w1) || ' ' || initcap(w2) || ' ' || i, upper(substr(w1, 1, 3) || substr(w2, 1, 2)) || (i % 1000),
           w1 || ' ' || w2 || ' ' || i, lower(substr(w1, 1, 3) || substr(w2, 1, 2)) || (i % 1000),
           1000000000000000000000000000, ${hex('i', 64)},
           1000 + i, ${hex('1000 + i', 64)}, 1700000000 + i * 2, ${hex('i', 64, 'f')}, 0, 2,
           case when graduated then 'graduated' else 'curve' end, 1073000000000000000000000000,
           30000000000000000000 + (i % 80)::numeric * 1000000000000000000, 793100000000000000000000000,
           (i % 80)::numeric * 1000000000000000000, 80000000000000000000, 793100000000000000000000000, 100, 50,
           case when graduated then 10000 else (i % 80) * 125 end,
           case when graduated then ${hex('i + 300000000', 40)} end, case when graduated then 1001 + i end,
           case when graduated then 1700000002 + i * 2 end, case when graduated then ${hex('i', 64, 'a')} end,
           case when graduated then 206900000000000000000000000 end, case when graduated then 80000000000000000000 end,
           (27958993476 + (i * 7919) % 100000000000)::numeric, ((27958993476 + (i * 7919) % 100000000000)::numeric * (i % 997 + 1) * 1000000),
           (27958993476 + (i * 7919) % 100000000000)::numeric * 1000000000, (i % 1000)::numeric * 1000000000000000000, i % 50, i % 30,
           case when i % 7 = 0 then ln(1 + i % 1000) + 2 * ln(1 + i % 30) + ln(1 + i % 50) else 0 end, i % 300,
           (i % 1000)::numeric * 10000000000000000000, i % 500, ${head.timestamp} - i % 100000,
           case when graduated and i % 40 = 0 then 'dex_v3' else 'curve' end,
           case when linked then 'd_' || lpad(to_hex(i), 16, '0') end, linked
      from (select i, i % 20 = 0 as graduated, i % 11 = 0 as linked, (${words})[1 + i % 16] as w1, (${words})[1 + (i / 16) % 16] as w2
              from generate_series(${from}::bigint, ${to}) i) g`;
}

/** Search terms of every token: symbol (kind 0), whole name (1), each later word of the name (2). */
export const insertSearchTerms = `insert into token_search_terms (term, token_address, kind)
  select symbol_search, address, 0 from tokens
  union all select name_search, address, 1 from tokens
  union all select split_part(name_search, ' ', 2), address, 2 from tokens
  union all select split_part(name_search, ' ', 3), address, 2 from tokens`;

/** Bound metadata of the linked tokens (image, description, links), finalized. */
export const insertDrafts = `insert into metadata_drafts (id, creator, name, symbol, initial_supply, description, website_url, x_url,
    telegram_url, discord_url, image_key, metadata_hash, bound_token_address, bound_transaction_hash, bound_at)
  select draft_id, creator, name, symbol, total_supply, 'Seeded token ' || name || ': synthetic metadata for benchmarks.',
         'https://example.com/' || symbol_search, 'https://x.com/' || symbol_search, null, null,
         substr(metadata_hash, 3) || '.png', metadata_hash, address, created_transaction_hash, now()
    from tokens where draft_id is not null`;

/** Per-creator aggregates over the tokens. */
export const insertCreators = `insert into creators (address, tokens_launched, tokens_graduated, first_launch_at, last_launch_at, total_volume)
  select creator, count(*), count(*) filter (where lifecycle = 'graduated'), min(created_at), max(created_at), sum(total_volume)
    from tokens group by creator`;

/** Trades [from, to] with the token index `k` of each (see the module comment). */
function tradeRows(from: number, to: number, tokenCount: number): string {
  return `select i, k, 5000000 + i / 50 as block_number, ${hex('5000000 + i / 50', 64)} as block_hash,
           1760000000 + (i / 50) * 10 as block_timestamp, ${hex('i', 64, 'e')} as transaction_hash,
           (i % 50)::int as transaction_index, (i % 50)::int as log_index, ${tokenAddressSql('k')} as token_address,
           ${hex('i % 199999 + 400000000', 40)} as trader,
           case when i % 3 = 0 then 'sell' else 'buy' end as side, case when i % 10 = 0 then 'dex_v3' else 'curve' end as source,
           (i % 1000 + 1)::numeric * 1000000000000000000000 as token_amount, (i % 1000 + 1)::numeric * 10000000000000000 as reserve_amount,
           (i % 1000 + 1)::numeric * 9850000000000000 as curve_value, (i % 1000 + 1)::numeric * 100000000000000 as protocol_fee,
           (i % 1000 + 1)::numeric * 50000000000000 as creator_fee, (27958993476 + (i % 100000))::numeric as price
      from (select i, case when i % 100 < 6 then 1 when i % 100 < 50 then 1 + i % ${Math.min(1000, tokenCount)}
                           else 1 + ((i / 1000) * 50 + i % 50) % ${tokenCount} end as k
              from generate_series(${from}::bigint, ${to}) i) g`;
}

const provenance =
  'block_number, block_hash, block_timestamp, transaction_hash, transaction_index, log_index';
const tradeColumns = `${provenance}, token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price`;

/** Trades [from, to]. */
export function insertTrades(from: number, to: number, tokenCount: number): string {
  return `insert into trades (${tradeColumns}) select ${tradeColumns} from (${tradeRows(from, to, tokenCount)}) t`;
}

/** The decoded event of each trade [from, to]: `trade` on the curve, `swap` in the pool. */
export function insertTradeEvents(from: number, to: number, tokenCount: number): string {
  return `insert into chain_events (${provenance}, token_address, kind, data)
    select ${provenance}, token_address, case when source = 'dex_v3' then 'swap' else 'trade' end,
           case when source = 'dex_v3' then jsonb_build_object(
             'pool', ${hex('k + 300000000', 40)}, 'sender', trader, 'recipient', trader,
             'amount0', (case when side = 'buy' then -token_amount else token_amount end)::text,
             'amount1', (case when side = 'buy' then div(reserve_amount, 1000000000000) else -div(reserve_amount, 1000000000000) end)::text,
             'sqrtPriceX96', '4189939328244760357459734', 'liquidity', '2598076211353316000000000', 'tick', (-207000 + i % 1000)::text)
           else jsonb_build_object(
             'token', token_address, 'trader', trader, 'isBuy', (side = 'buy')::text, 'tokenAmount', token_amount::text,
             'reserveAmount', reserve_amount::text, 'curveValue', curve_value::text, 'protocolFee', protocol_fee::text,
             'creatorFee', creator_fee::text, 'virtualTokenReserve', (1073000000000000000000000000 - token_amount)::text,
             'virtualReserve', (30000000000000000000 + reserve_amount)::text, 'realTokenReserve', (793100000000000000000000000 - token_amount)::text,
             'realReserve', reserve_amount::text) end
      from (${tradeRows(from, to, tokenCount)}) t`;
}

/** Launch and graduation events of every token. */
export const insertTokenEvents = `insert into chain_events (${provenance}, token_address, kind, data)
  select created_block, created_block_hash, created_at, created_transaction_hash, created_transaction_index, created_log_index, address,
         'launch', jsonb_build_object('token', address, 'creator', creator, 'curve', curve_address, 'name', name, 'symbol', symbol,
           'totalSupply', total_supply::text, 'metadataHash', metadata_hash, 'virtualTokenReserve', virtual_token_reserve::text,
           'virtualReserve', '30000000000000000000', 'realTokenReserve', curve_supply::text,
           'graduationThreshold', graduation_threshold::text, 'protocolFeeBps', protocol_fee_bps::text, 'creatorFeeBps', creator_fee_bps::text)
    from tokens
  union all
  select graduated_block, '0x' || lpad(to_hex(graduated_block), 64, '0'), graduated_at, graduated_transaction_hash, 0, 6, address,
         'graduation', jsonb_build_object('token', address, 'pool', pool_address, 'tokenAmount', graduation_token_amount::text,
           'reserveAmount', graduation_reserve_amount::text, 'stableAmount', div(graduation_reserve_amount, 1000000000000)::text,
           'burnedTokenAmount', '0', 'liquidity', '4073600000000000000', 'sqrtPriceX96', '4189939328244760357459734')
    from tokens where graduated_block is not null`;

/**
 * Candles of the shortest interval from trades, every longer one from the one below it (each
 * interval divides the next), so 20M trades are aggregated once. Open and close are the
 * bucket's lowest and highest price: synthetic data, well-formed candles.
 */
export const candleLevels: { seconds: number; sql: string }[] = [
  {
    seconds: 60,
    sql: `insert into candles (token_address, interval_seconds, bucket_start, open, high, low, close, volume, trades, last_block_number, last_log_index)
      select token_address, 60, block_timestamp - block_timestamp % 60, min(price), max(price), min(price), max(price),
             sum(reserve_amount), count(*), max(block_number), 0
        from trades group by token_address, block_timestamp - block_timestamp % 60`,
  },
  ...[
    [300, 60],
    [900, 300],
    [3600, 900],
    [14400, 3600],
    [86400, 14400],
    [604800, 86400],
  ].map(([seconds, below]) => ({
    seconds: seconds as number,
    sql: `insert into candles (token_address, interval_seconds, bucket_start, open, high, low, close, volume, trades, last_block_number, last_log_index)
      select token_address, ${seconds}, bucket_start - bucket_start % ${seconds}, min(open), max(high), min(low), max(close),
             sum(volume), sum(trades), max(last_block_number), 0
        from candles where interval_seconds = ${below} group by token_address, bucket_start - bucket_start % ${seconds}`,
  })),
];

/**
 * Balances: every token a wallet traded, with the sum of its trade amounts (synthetic trades
 * have no order a running balance could honour; a sum keeps every balance positive), changed
 * last at its last trade.
 */
export const insertBalances = `insert into balances (token_address, wallet, balance, kind, since_block)
  select token_address, trader, sum(token_amount), 0, max(block_number) from trades group by token_address, trader`;

/**
 * Balance history as the indexer writes it (docs/indexer.md, "Balance history"), from the same
 * running sums: every trade of a (token, wallet) closes the interval its previous trade opened;
 * segments start where the indexer's rule starts them (each trade opens a holder row and, but
 * the wallet's first, closes one; the countdown runs in chain order per token, once per block),
 * and cut every interval open across them; the tokens' segment state is what the rule leaves.
 * Statements in order; the work tables go at the end.
 */
export function balanceHistoryStatements(minimum: number): string[] {
  return [
    `create unlogged table seed_moves as
      select token_address, trader, block_number, sum(token_amount) over w as balance,
             lead(block_number) over w as next_block, row_number() over w = 1 as first
        from trades window w as (partition by token_address, trader order by block_number, log_index)`,
    `create unlogged table seed_segments (token_address text, start_block bigint, primary key (token_address, start_block))`,
    `create unlogged table seed_state (token_address text primary key, segment bigint, countdown bigint)`,
    `do $$
      declare r record; token text := ''; countdown bigint; holders bigint; segment bigint;
      begin
        for r in select token_address, block_number, sum(case when first then 1 else 2 end) as events,
                        sum(first::int) as arrivals
                   from seed_moves group by token_address, block_number order by token_address, block_number loop
          if r.token_address <> token then
            if token <> '' then insert into seed_state values (token, segment, countdown); end if;
            token := r.token_address; countdown := ${minimum}; holders := 0; segment := 0;
          end if;
          countdown := countdown - r.events;
          holders := holders + r.arrivals;
          if countdown <= 0 then
            insert into seed_segments values (token, r.block_number);
            segment := r.block_number;
            countdown := greatest(${minimum}, holders);
          end if;
        end loop;
        if token <> '' then insert into seed_state values (token, segment, countdown); end if;
      end $$`,
    // Tokens that never started a segment: their intervals as they are.
    `insert into balance_history (token_address, wallet, from_block, to_block, balance, kind, segment)
      select token_address, trader, block_number, next_block, balance, 0, 0 from seed_moves m
       where next_block is not null
         and not exists (select 1 from seed_segments s where s.token_address = m.token_address)`,
    // The others: each interval (the open ones too) cut at the segment starts inside it; the open
    // piece of an open interval is its balances row.
    `insert into balance_history (token_address, wallet, from_block, to_block, balance, kind, segment)
      select token_address, trader, cut, to_block, balance, 0, segment from (
        select m.token_address, m.trader, m.balance, c.cut,
               coalesce(lead(c.cut) over (partition by m.token_address, m.trader, m.block_number order by c.cut), m.next_block) as to_block,
               case when c.cut = m.block_number
                    then coalesce((select max(s.start_block) from seed_segments s
                                    where s.token_address = m.token_address and s.start_block <= m.block_number), 0)
                    else c.cut end as segment
          from seed_moves m
          cross join lateral (select m.block_number as cut
                              union all
                              select s.start_block from seed_segments s
                               where s.token_address = m.token_address and s.start_block > m.block_number
                                 and (m.next_block is null or s.start_block < m.next_block)) c
         where exists (select 1 from seed_segments s where s.token_address = m.token_address)) pieces
       where to_block is not null`,
    `update tokens t set history_segment = x.segment, history_countdown = x.countdown
       from seed_state x where t.address = x.token_address`,
    'drop table seed_moves, seed_segments, seed_state',
  ];
}

/**
 * Traders (docs/api.md "Traders, PnL and labels") from the same trades, so the traders and PnL
 * routes have rows at scale. The counts, amounts, quotes (gross on buys, net of fees on sells)
 * and first/last trade are exact; the position follows the synthetic balances above (the sum of
 * the trade amounts, so `balance` equals the holder's), and the cost of what was sold is taken at
 * the average cost of all buys (synthetic trades have no order a running average could honour).
 * No label applies: traders are never creators, no trade lands within SNIPER_BLOCKS of its
 * launch, and every trade has a transaction of its own.
 */
export const insertTraders = `insert into traders (token_address, wallet, bought, sold, quote_spent, quote_received, volume, balance,
    cost_basis, realized_pnl, buys, sells, first_trade_block, first_trade_at, last_trade_block, last_trade_at,
    is_creator, sniper, bundler, creator_linked)
  select token_address, wallet, bought, sold, quote_spent, quote_received, quote_spent + quote_received, balance,
         greatest(quote_spent - sold_cost, 0), quote_received - sold_cost, buys, sells,
         first_block, first_at, last_block, last_at, false, false, false, false
    from (select *, case when bought > 0 then div(quote_spent * least(sold, bought), bought) else 0 end as sold_cost
            from (select token_address, trader as wallet,
                         coalesce(sum(token_amount) filter (where side = 'buy'), 0) as bought,
                         coalesce(sum(token_amount) filter (where side = 'sell'), 0) as sold,
                         coalesce(sum(reserve_amount) filter (where side = 'buy'), 0) as quote_spent,
                         coalesce(sum(curve_value) filter (where side = 'sell'), 0) as quote_received,
                         sum(token_amount) as balance,
                         (count(*) filter (where side = 'buy'))::int as buys, (count(*) filter (where side = 'sell'))::int as sells,
                         min(block_number) as first_block, min(block_timestamp) as first_at,
                         max(block_number) as last_block, max(block_timestamp) as last_at
                    from trades group by token_address, trader) a) b`;

/** The indexer's checkpoint at the head of the seeded trades, marked as the current code's rows. */
export function insertCheckpoint(tradeCount: number): string {
  const head = headOf(tradeCount);
  return `insert into indexer_checkpoint (id, chain_id, indexed_through_block, block_hash, block_timestamp, projection_version)
    values ('main', 31337, ${head.block}, ${hex(String(head.block), 64)}, ${head.timestamp}, ${PROJECTION_VERSION})
    on conflict (id) do update set indexed_through_block = excluded.indexed_through_block,
      block_hash = excluded.block_hash, block_timestamp = excluded.block_timestamp`;
}
