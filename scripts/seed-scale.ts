/**
 * `npm run seed:scale -- --database-url postgres://… [--tokens 1000000] [--trades 20000000]`
 *
 * Fills a PostgreSQL database (migrated first) with synthetic but well-formed projections at
 * production scale, generated inside PostgreSQL with generate_series: tokens with search terms,
 * trades skewed towards popular tokens (one token gets 6 % of all trades), candles aggregated from
 * those trades, balances. For query plans (docs/api.md) and read benchmarks, never for tests of
 * correctness (those index a real chain).
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    tokens: { type: 'string', default: '1000000' },
    trades: { type: 'string', default: '20000000' },
  },
});
const url = values['database-url'];
if (!url) {
  console.error('--database-url postgres://… is required (the data is large; PGlite is not the target)');
  process.exit(2);
}
const tokenCount = Number(values.tokens);
const tradeCount = Number(values.trades);
const handle = await openDatabase({ kind: 'postgres', url }, { max: 1 });
await migrateDatabase(handle);
const db = handle.db;
const step = async (label: string, query: ReturnType<typeof sql>) => {
  const started = performance.now();
  process.stdout.write(`▶ ${label}… `);
  await db.execute(query);
  console.log(`${((performance.now() - started) / 1000).toFixed(1)}s`);
};

const words = sql.raw(
  `array['moon','frog','cat','doge','whale','pepe','otter','rocket','panda','goose','banana','wizard','shiba','based','turbo','giga']`,
);
await step(
  `${tokenCount} tokens`,
  sql`insert into tokens (address, curve_address, creator, name, symbol, name_search, symbol_search, total_supply, metadata_hash,
        created_block, created_block_hash, created_at, created_transaction_hash, created_transaction_index, created_log_index,
        lifecycle, virtual_token_reserve, virtual_reserve, real_token_reserve, real_reserve, graduation_threshold, curve_supply,
        progress_bps, current_price, market_cap, fully_diluted_value, volume_24h, trades_24h, traders_24h, trending_score, holders,
        trade_count, total_volume, has_links, pool_address)
      select '0x' || lpad(to_hex(i), 40, '0'), '0x' || lpad(to_hex(i + 100000000), 40, '0'), '0x' || lpad(to_hex(i % 50000 + 200000000), 40, '0'),
             initcap(w1) || ' ' || initcap(w2) || ' ' || i, upper(substr(w1, 1, 3) || substr(w2, 1, 2)) || (i % 1000),
             w1 || ' ' || w2 || ' ' || i, lower(substr(w1, 1, 3) || substr(w2, 1, 2)) || (i % 1000),
             1000000000000000000000000000, '0x' || lpad(to_hex(i), 64, '0'),
             1000 + i, '0x' || lpad(to_hex(1000 + i), 64, '0'), 1700000000 + i * 2, '0x' || lpad(to_hex(i), 64, 'f'), 0, 2,
             case when i % 20 = 0 then 'graduated' else 'curve' end, 1073000000000000000000000000, 30000000000000000000 + (i % 80)::numeric * 1000000000000000000,
             793100000000000000000000000, (i % 80)::numeric * 1000000000000000000, 80000000000000000000, 793100000000000000000000000,
             case when i % 20 = 0 then 10000 else (i % 80) * 125 end,
             (27958993476 + (i * 7919) % 100000000000)::numeric, ((27958993476 + (i * 7919) % 100000000000)::numeric * (i % 997 + 1) * 1000000),
             (27958993476 + (i * 7919) % 100000000000)::numeric * 1000000000, (i % 1000)::numeric * 1000000000000000000, i % 50, i % 30,
             case when i % 7 = 0 then ln(1 + i % 1000) + 2 * ln(1 + i % 30) + ln(1 + i % 50) else 0 end, i % 500, i % 300,
             (i % 1000)::numeric * 10000000000000000000, i % 11 = 0, case when i % 20 = 0 then '0x' || lpad(to_hex(i + 300000000), 40, '0') end
        from (select i, (${words})[1 + i % 16] as w1, (${words})[1 + (i / 16) % 16] as w2 from generate_series(1::bigint, ${tokenCount}) i) g
      on conflict do nothing`,
);
await step(
  'search terms',
  sql`insert into token_search_terms (term, token_address, kind)
      select symbol_search, address, 0 from tokens
      union all select name_search, address, 1 from tokens
      union all select w, address, 2 from (select address, (string_to_array(name_search, ' '))[2] as w from tokens) s where w is not null
      union all select w, address, 2 from (select address, (string_to_array(name_search, ' '))[3] as w from tokens) s where w is not null
      on conflict do nothing`,
);
// One busy token (address 1) gets 6 % of the trades, the first 1,000 tokens half, the rest spread.
await step(
  `${tradeCount} trades`,
  sql`insert into trades (block_number, block_hash, block_timestamp, transaction_hash, transaction_index, log_index, token_address, trader,
        side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
      select 5000000 + i / 50, '0x' || lpad(to_hex(5000000 + i / 50), 64, '0'), 1760000000 + i / 5,
             '0x' || lpad(to_hex(i), 64, 'e'), (i % 50), (i % 50),
             '0x' || lpad(to_hex(case when i % 100 < 6 then 1 when i % 100 < 50 then 1 + i % 1000 else 1 + (i * 7919) % ${tokenCount} end), 40, '0'),
             '0x' || lpad(to_hex(i % 200000 + 400000000), 40, '0'),
             case when i % 3 = 0 then 'sell' else 'buy' end, case when i % 10 = 0 then 'dex_v3' else 'curve' end,
             (i % 1000 + 1)::numeric * 1000000000000000000000, (i % 1000 + 1)::numeric * 10000000000000000, (i % 1000 + 1)::numeric * 9850000000000000,
             (i % 1000 + 1)::numeric * 100000000000000, (i % 1000 + 1)::numeric * 50000000000000, 27958993476 + (i % 100000)
        from generate_series(1::bigint, ${tradeCount}) i`,
);
await step(
  'candles (every interval)',
  sql`insert into candles (token_address, interval_seconds, bucket_start, open, high, low, close, volume, trades, last_block_number, last_log_index)
      select token_address, iv, block_timestamp - block_timestamp % iv, min(price), max(price), min(price), max(price), sum(reserve_amount), count(*), max(block_number), 0
        from trades cross join (values (60), (300), (900), (3600), (14400), (86400), (604800)) v(iv)
       group by token_address, iv, block_timestamp - block_timestamp % iv`,
);
await step(
  'balances',
  sql`insert into balances (token_address, wallet, balance, kind)
      select token_address, trader, sum(token_amount), 0 from trades group by token_address, trader on conflict do nothing`,
);
await step(
  'checkpoint',
  sql`insert into indexer_checkpoint (id, chain_id, indexed_through_block, block_hash, block_timestamp)
      values ('main', 31337, ${5000000 + Math.floor(tradeCount / 50)}, '0x' || repeat('0', 64), ${1760000000 + Math.floor(tradeCount / 5)})
      on conflict (id) do nothing`,
);
await step('analyze', sql`analyze`);
await handle.close();
