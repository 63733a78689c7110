import { sql } from 'drizzle-orm';
import type { ColumnType } from '../../db/bulk';
import { textArray } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';
import type { TokenState } from './state';

/** Columns of `tokens` that a batch rewrites for a token it touches. */
export const tokenStateColumns = {
  address: 'text',
  lifecycle: 'text',
  virtual_token_reserve: 'numeric',
  virtual_reserve: 'numeric',
  real_token_reserve: 'numeric',
  real_reserve: 'numeric',
  graduation_threshold: 'numeric',
  progress_bps: 'integer',
  pool_address: 'text',
  graduated_block: 'bigint',
  graduated_at: 'bigint',
  graduated_transaction_hash: 'text',
  graduation_token_amount: 'numeric',
  graduation_reserve_amount: 'numeric',
  burned_amount: 'numeric',
  current_price: 'numeric',
  market_cap: 'numeric',
  fully_diluted_value: 'numeric',
  trade_count: 'integer',
  total_volume: 'numeric',
  last_trade_at: 'bigint',
  last_trade_source: 'text',
  holders: 'integer',
} as const satisfies Record<string, ColumnType>;

export function tokenStateRow(state: TokenState): Record<keyof typeof tokenStateColumns, unknown> {
  return {
    address: state.address,
    lifecycle: state.lifecycle,
    virtual_token_reserve: state.virtualTokenReserve,
    virtual_reserve: state.virtualReserve,
    real_token_reserve: state.realTokenReserve,
    real_reserve: state.realReserve,
    graduation_threshold: state.graduationThreshold,
    progress_bps: state.progressBps,
    pool_address: state.poolAddress,
    graduated_block: state.graduatedBlock,
    graduated_at: state.graduatedAt,
    graduated_transaction_hash: state.graduatedTransactionHash,
    graduation_token_amount: state.graduationTokenAmount,
    graduation_reserve_amount: state.graduationReserveAmount,
    burned_amount: state.burnedAmount,
    current_price: state.currentPrice,
    market_cap: state.marketCap,
    fully_diluted_value: state.fullyDilutedValue,
    trade_count: state.tradeCount,
    total_volume: state.totalVolume,
    last_trade_at: state.lastTradeAt,
    last_trade_source: state.lastTradeSource,
    holders: state.holders,
  };
}

type Value = string | number | null | undefined;
type Row = Record<string, Value>;
const big = (value: Value) => BigInt(value ?? 0);
const bigOrNull = (value: Value) => (value === null || value === undefined ? null : BigInt(value));
const numOrNull = (value: Value) => (value === null || value === undefined ? null : Number(value));

export async function readTokenStates(db: Database, addresses: string[]): Promise<Map<string, TokenState>> {
  const states = new Map<string, TokenState>();
  if (addresses.length === 0) return states;
  const rows = await selectRows<Row>(
    db,
    sql`select address, creator, curve_address, total_supply::text, curve_supply::text, lifecycle,
          virtual_token_reserve::text, virtual_reserve::text, real_token_reserve::text, real_reserve::text,
          graduation_threshold::text, progress_bps, pool_address, graduated_block, graduated_at, graduated_transaction_hash,
          graduation_token_amount::text, graduation_reserve_amount::text, burned_amount::text, current_price::text,
          market_cap::text, fully_diluted_value::text, trade_count, total_volume::text, last_trade_at, last_trade_source, holders
        from tokens where address = any(${textArray(addresses)})`,
  );
  for (const row of rows) {
    states.set(String(row.address), {
      address: String(row.address),
      creator: String(row.creator),
      curve: String(row.curve_address),
      totalSupply: big(row.total_supply),
      curveSupply: big(row.curve_supply),
      lifecycle: row.lifecycle === 'graduated' ? 'graduated' : 'curve',
      virtualTokenReserve: big(row.virtual_token_reserve),
      virtualReserve: big(row.virtual_reserve),
      realTokenReserve: big(row.real_token_reserve),
      realReserve: big(row.real_reserve),
      graduationThreshold: big(row.graduation_threshold),
      progressBps: Number(row.progress_bps),
      poolAddress: row.pool_address === null ? null : String(row.pool_address),
      graduatedBlock: numOrNull(row.graduated_block),
      graduatedAt: numOrNull(row.graduated_at),
      graduatedTransactionHash:
        row.graduated_transaction_hash === null ? null : String(row.graduated_transaction_hash),
      graduationTokenAmount: bigOrNull(row.graduation_token_amount),
      graduationReserveAmount: bigOrNull(row.graduation_reserve_amount),
      burnedAmount: big(row.burned_amount),
      currentPrice: big(row.current_price),
      marketCap: big(row.market_cap),
      fullyDilutedValue: big(row.fully_diluted_value),
      tradeCount: Number(row.trade_count),
      totalVolume: big(row.total_volume),
      lastTradeAt: numOrNull(row.last_trade_at),
      lastTradeSource:
        row.last_trade_source === null ? null : (String(row.last_trade_source) as 'curve' | 'dex_v3'),
      holders: Number(row.holders),
    });
  }
  return states;
}
