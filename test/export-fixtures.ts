import { sql } from 'drizzle-orm';
import type { Database } from '../server/db/client';
import { createPartitionKeeper } from '../server/db/partitions';
import { fixtureToken, insertTokens, setCheckpoint } from './fixtures';

/**
 * Rows for the CSV export suites, written straight into the read model with generate_series (an
 * indexed chain of a million trades would take the suite's whole budget). Values vary enough to
 * exercise every column: both sides and sources, ties on the sort keys (broken by wallet), negative
 * PnL, null first trades, every label combination.
 */

/** The block every fixture row is at or below. */
export const EXPORT_CHECKPOINT_BLOCK = 4_000_000;

/** A token (fixture number `i`) with `rows` trades, holders and traders, at blocks from `firstBlock`. */
export async function seedListedToken(
  db: Database,
  i: number,
  rows: number,
  firstBlock: number,
): Promise<string> {
  const token = fixtureToken(i);
  await insertTokens(db, [token]);
  await createPartitionKeeper(db).ensure(firstBlock, firstBlock + rows);
  const address = token.address;
  await db.execute(sql`insert into trades (block_number, block_hash, block_timestamp, transaction_hash, transaction_index,
      log_index, token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee,
      creator_fee, price)
    select ${firstBlock} + g / 3, '0x' || md5('block' || (g / 3)) || md5('b' || (g / 3)), 1700000000 + g / 3,
           '0x' || md5('tx' || g) || md5('t' || g), g % 3, (g % 3) * 2 + 1, ${address},
           '0x' || substr(md5('trader' || (g % 97)) || md5('t' || (g % 97)), 1, 40),
           case when g % 4 = 0 then 'sell' else 'buy' end, case when g % 5 = 0 then 'dex_v3' else 'curve' end,
           g::numeric * 1000000000000000007, g::numeric * 31, g::numeric * 29, g % 7, g % 3, g::numeric * 1000
      from generate_series(1, ${rows}) g`);
  await db.execute(sql`insert into balances (token_address, wallet, balance, kind)
    select ${address}, '0x' || substr(md5('holder' || g) || md5('h' || g), 1, 40),
           (g % 300)::numeric * 1000000000000000000 + (g % 2), case when g % 500 = 0 then 1 else 0 end
      from generate_series(1, ${rows}) g`);
  await db.execute(sql`insert into traders (token_address, wallet, bought, sold, quote_spent, quote_received, volume,
      balance, cost_basis, realized_pnl, buys, sells, first_trade_block, first_trade_at, last_trade_block, last_trade_at,
      is_creator, sniper, bundler, creator_linked)
    select ${address}, '0x' || substr(md5('wallet' || g) || md5('w' || g), 1, 40), g::numeric * 1000, g % 13,
           g::numeric * 7, (g % 11)::numeric * 5, g::numeric * 7 + (g % 11) * 5, (g % 40)::numeric * 1000000,
           g % 17, ((g * 7919) % 1000 - 500)::numeric * 1000000000000000, g % 9, g % 4,
           case when g % 7 = 0 then null else ${firstBlock} + g end, case when g % 7 = 0 then null else 1700000000 + g end,
           case when g % 7 = 0 then null else ${firstBlock} + g * 2 end,
           case when g % 7 = 0 then null else 1700000000 + g * 2 end,
           g = 1, g % 5 = 0, g % 3 = 0, g % 11 = 0
      from generate_series(1, ${rows}) g`);
  return address;
}

/** A token with `rows` trades of a pattern {@link bulkTradeRecord} writes again, from block `firstBlock`. */
export async function seedBulkTrades(
  db: Database,
  i: number,
  rows: number,
  firstBlock: number,
): Promise<string> {
  const token = fixtureToken(i);
  await insertTokens(db, [token]);
  await createPartitionKeeper(db).ensure(firstBlock, firstBlock + rows);
  await db.execute(sql`insert into trades (block_number, block_hash, block_timestamp, transaction_hash, transaction_index,
      log_index, token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee,
      creator_fee, price)
    select ${firstBlock} + (g - 1) / 4, '0x' || lpad(to_hex(${firstBlock} + (g - 1) / 4), 64, '0'),
           1700000000 + (g - 1) / 4, '0x' || lpad(to_hex(g), 64, '0'), (g - 1) % 4, (g - 1) % 4, ${token.address},
           '0x' || lpad(to_hex(g % 1000), 40, '0'), case when g % 2 = 0 then 'buy' else 'sell' end,
           case when g % 3 = 0 then 'dex_v3' else 'curve' end, g::numeric * 1000000000000, g::numeric * 3,
           g::numeric * 2, g, 0, g
      from generate_series(1, ${rows}) g`);
  return token.address;
}

/** Trade `g` of {@link seedBulkTrades} as the export's CSV record, written from the seed's formulas. */
export function bulkTradeRecord(token: string, g: number, firstBlock: number): string {
  const block = firstBlock + Math.floor((g - 1) / 4);
  const hex = (value: number, width: number) => `0x${value.toString(16).padStart(width, '0')}`;
  return [
    1_700_000_000 + Math.floor((g - 1) / 4),
    token,
    hex(g % 1000, 40),
    g % 2 === 0 ? 'buy' : 'sell',
    (BigInt(g) * 1_000_000_000_000n).toString(),
    g * 3,
    g * 2,
    g,
    0,
    g % 3 === 0 ? 'dex_v3' : 'curve',
    block,
    (g - 1) % 4,
    hex(g, 64),
    (g - 1) % 4,
  ].join(',');
}

/** The checkpoint every export fixture reads at. */
export async function setExportCheckpoint(db: Database): Promise<void> {
  await setCheckpoint(db, EXPORT_CHECKPOINT_BLOCK);
}

/** `rows` holders of `token`, balances spread so the order is by balance then wallet. */
export async function seedBulkHolders(db: Database, token: string, rows: number): Promise<void> {
  await db.execute(sql`insert into balances (token_address, wallet, balance, kind)
    select ${token}, '0x' || lpad(to_hex(g), 40, '0'), (g % 5000)::numeric * 1000000000000 + g, 0
      from generate_series(1, ${rows}) g`);
}
