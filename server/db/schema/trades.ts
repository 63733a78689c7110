import { sql } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';
import { tradeSides, tradeSources } from '../../../shared/api/enums';
import { blockNumber, hex, logProvenance, uint256, unixSeconds } from './columns';

/** Curve trades and Uniswap V3 swaps of graduated pools, amounts normalized to 18 decimals. */
export const trades = pgTable(
  'trades',
  {
    ...logProvenance,
    tokenAddress: hex('token_address').notNull(),
    trader: hex('trader').notNull(),
    side: text('side', { enum: tradeSides }).notNull(),
    source: text('source', { enum: tradeSources }).notNull(),
    tokenAmount: uint256('token_amount').notNull(),
    reserveAmount: uint256('reserve_amount').notNull(),
    curveValue: uint256('curve_value').notNull(),
    protocolFee: uint256('protocol_fee').notNull(),
    creatorFee: uint256('creator_fee').notNull(),
    /** Price after the trade, native base units per whole token. */
    price: uint256('price').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.blockNumber, t.logIndex] }),
    // Reverse chain order per token; log_index is block-wide, so (block, log) orders like
    // (block, transaction index, log).
    index('trades_token_order_idx').on(
      t.tokenAddress,
      t.blockNumber.desc().nullsFirst(),
      t.logIndex.desc().nullsFirst(),
    ),
    index('trades_token_time_idx').on(t.tokenAddress, t.blockTimestamp),
    index('trades_trader_idx').on(
      t.trader,
      t.blockNumber.desc().nullsFirst(),
      t.logIndex.desc().nullsFirst(),
    ),
  ],
);

export const candleIntervals = {
  '1m': 60,
  '5m': 300,
  '15m': 900,
  '1h': 3600,
  '4h': 14400,
  '1d': 86400,
  '1w': 604800,
} as const;
export type CandleInterval = keyof typeof candleIntervals;

/**
 * OHLCV per (token, interval, bucket), maintained at index time: charts at 20M trades cannot be
 * computed per request (DESIGN.md section 10).
 */
export const candles = pgTable(
  'candles',
  {
    tokenAddress: hex('token_address').notNull(),
    intervalSeconds: integer('interval_seconds').notNull(),
    bucketStart: unixSeconds('bucket_start').notNull(),
    open: uint256('open').notNull(),
    high: uint256('high').notNull(),
    low: uint256('low').notNull(),
    close: uint256('close').notNull(),
    volume: uint256('volume').notNull(),
    trades: integer('trades').notNull(),
    /** Last trade folded in, so re-projecting the same log is a no-op. */
    lastBlockNumber: blockNumber('last_block_number').notNull(),
    lastLogIndex: integer('last_log_index').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tokenAddress, t.intervalSeconds, t.bucketStart] })],
);

/** Current balance per (token, wallet); zero balances are deleted so holder counts are row counts. */
/**
 * What a `balances` row's `kind` says about its wallet: only `holder` rows count as holders. The
 * indexer classifies each row as it writes it; the API reads the kinds (a token's distribution).
 */
export const balanceKind = { holder: 0, curve: 1, pool: 2, burn: 3, launchpad: 4 } as const;

export const balances = pgTable(
  'balances',
  {
    tokenAddress: hex('token_address').notNull(),
    wallet: hex('wallet').notNull(),
    balance: uint256('balance').notNull(),
    /** Curve, pool and burn addresses hold tokens too; they are not holders. */
    kind: smallint('kind').notNull().default(balanceKind.holder),
  },
  (t) => [
    primaryKey({ columns: [t.tokenAddress, t.wallet] }),
    index('balances_wallet_idx').on(t.wallet, t.tokenAddress),
    // Top holders: only holder rows, in the order the API pages them.
    index('balances_holders_idx')
      .on(t.tokenAddress, t.balance.desc().nullsFirst(), t.wallet.desc().nullsFirst())
      .where(sql`${t.kind} = 0`),
    // The curve, pool, burn and launchpad rows of a token (a handful), for its supply shares:
    // without it a detail read sums them by walking every holder row of the token.
    index('balances_accounts_idx').on(t.tokenAddress, t.kind).where(sql`${t.kind} <> 0`),
  ],
);
