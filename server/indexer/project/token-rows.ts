import { sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { textArray } from '../../db/bulk';
import type { Database } from '../../db/client';
import { tokens } from '../../db/schema';
import { bulkColumns, columnNames } from '../../db/table-columns';
import type { TokenState } from './state';

/**
 * The column of `tokens` behind each TokenState property: the read below, the rewrite of a
 * touched token and the journal's restore list all follow this one map, with SQL names and
 * types from the schema. A property added to TokenState fails typecheck until it is mapped.
 */
const stateColumn = {
  address: tokens.address,
  creator: tokens.creator,
  createdBlock: tokens.createdBlock,
  curve: tokens.curveAddress,
  totalSupply: tokens.totalSupply,
  curveSupply: tokens.curveSupply,
  lifecycle: tokens.lifecycle,
  virtualTokenReserve: tokens.virtualTokenReserve,
  virtualReserve: tokens.virtualReserve,
  realTokenReserve: tokens.realTokenReserve,
  realReserve: tokens.realReserve,
  graduationThreshold: tokens.graduationThreshold,
  progressBps: tokens.progressBps,
  poolAddress: tokens.poolAddress,
  graduatedBlock: tokens.graduatedBlock,
  graduatedAt: tokens.graduatedAt,
  graduatedTransactionHash: tokens.graduatedTransactionHash,
  graduationTokenAmount: tokens.graduationTokenAmount,
  graduationReserveAmount: tokens.graduationReserveAmount,
  burnedAmount: tokens.burnedAmount,
  currentPrice: tokens.currentPrice,
  marketCap: tokens.marketCap,
  fullyDilutedValue: tokens.fullyDilutedValue,
  tradeCount: tokens.tradeCount,
  totalVolume: tokens.totalVolume,
  lastTradeAt: tokens.lastTradeAt,
  lastTradeSource: tokens.lastTradeSource,
  holders: tokens.holders,
  historySegment: tokens.historySegment,
  historyCountdown: tokens.historyCountdown,
} satisfies { [K in keyof TokenState]: PgColumn };

/** Set at launch, never changed by a later range: not rewritten. */
const setAtLaunch = new Set<keyof TokenState>([
  'creator',
  'createdBlock',
  'curve',
  'totalSupply',
  'curveSupply',
]);
const rewritten = (Object.keys(stateColumn) as (keyof TokenState)[]).filter((key) => !setAtLaunch.has(key));

/** Columns of `tokens` that a batch rewrites for a token it touches (SQL name → bulk type). */
export const tokenStateColumns = bulkColumns(
  tokens,
  rewritten.map((key) => stateColumn[key].name),
);

/** A token's rewritten columns as a row for the bulk writers, keyed by SQL name. */
export function tokenStateRow(state: TokenState): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const key of rewritten) row[stateColumn[key].name] = state[key];
  return row;
}

/** The stored states of `addresses` (those that are tokens), decoded by the schema's column types. */
export async function readTokenStates(db: Database, addresses: string[]): Promise<Map<string, TokenState>> {
  const states = new Map<string, TokenState>();
  if (addresses.length === 0) return states;
  const rows: TokenState[] = await db
    .select(stateColumn)
    .from(tokens)
    .where(sql`${tokens.address} = any(${textArray(addresses)})`);
  for (const row of rows) states.set(row.address, row);
  return states;
}

/** Columns of `tokens` that are not chain data: moderation and bound metadata (never written by the indexer). */
const notChainData: readonly PgColumn[] = [tokens.excluded, tokens.draftId, tokens.hasLinks];
/** The trailing-window metrics, set by project/metrics.ts after each write (their defaults at launch). */
const windowMetrics: readonly PgColumn[] = [
  tokens.volume24h,
  tokens.trades24h,
  tokens.traders24h,
  tokens.trendingScore,
];

/** Every column of `tokens` the indexer writes: a launch writes all but the window metrics. */
export const indexerTokenColumns = columnNames(tokens).filter(
  (name) => !notChainData.some((c) => c.name === name) && !windowMetrics.some((c) => c.name === name),
);

/** Every column of `tokens` a rollback restores: all the indexer's but the key. */
export const restoredTokenColumns = columnNames(tokens).filter(
  (name) => name !== tokens.address.name && !notChainData.some((c) => c.name === name),
);
