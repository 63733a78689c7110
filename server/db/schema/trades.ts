import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
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
