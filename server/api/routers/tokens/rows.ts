import { eq, sql } from 'drizzle-orm';
import type { TokenListItem } from '../../../../shared/api/tokens';
import { indexedHeadTimestampSql } from '../../../db/checkpoint';
import { frozenSql } from '../../../db/frozen-sql';
import { metadataDrafts, tokens } from '../../../db/schema';

/**
 * Price change over the indexed last 24 h in basis points, as a scalar subquery per row. The
 * reference price is the close of the last 1-minute candle that started at least 24 h before the
 * indexed head; a token younger than that is compared with its first traded price. Null when the
 * token never traded. Each lookup is one probe of the candles primary key. `offset 0` keeps the
 * reference a subquery of its own: pulled up, its two probes were copied into each of the three
 * uses of `ref.price` (six probes per row instead of two; a 20-row list page read 0.69 ms instead
 * of 0.24 ms in EXPLAIN ANALYZE on 50k tokens / 1M trades).
 */
export const priceChange24hBpsColumn = sql<number | null>`${frozenSql(sql`(
  select greatest(-2000000000, least(2000000000, round((${tokens.currentPrice} - ref.price) * 10000 / ref.price)))::int
    from (select coalesce(
      (select c.close from candles c
        where c.token_address = ${tokens.address} and c.interval_seconds = 60
          and c.bucket_start <= ${indexedHeadTimestampSql} - 86400
        order by c.bucket_start desc limit 1),
      (select c.open from candles c
        where c.token_address = ${tokens.address} and c.interval_seconds = 60
        order by c.bucket_start asc limit 1)) as price offset 0) ref
   where ref.price > 0)`)}`.mapWith((value: string | number | null) =>
  value === null ? null : Number(value),
);

/**
 * The token columns a list row needs (the item, every list's keyset key, holdings' valuation):
 * a third of the table's width, so list pages read, transfer and map less.
 */
const tokenListColumns = {
  address: tokens.address,
  name: tokens.name,
  symbol: tokens.symbol,
  creator: tokens.creator,
  createdAt: tokens.createdAt,
  createdBlock: tokens.createdBlock,
  createdLogIndex: tokens.createdLogIndex,
  lifecycle: tokens.lifecycle,
  progressBps: tokens.progressBps,
  currentPrice: tokens.currentPrice,
  marketCap: tokens.marketCap,
  volume24h: tokens.volume24h,
  trades24h: tokens.trades24h,
  holders: tokens.holders,
  trendingScore: tokens.trendingScore,
  excluded: tokens.excluded,
};

/** Columns every token list read selects: the row, its bound image, its 24 h price change. */
export const tokenRowColumns = {
  token: tokenListColumns,
  imageKey: metadataDrafts.imageKey,
  priceChange24hBps: priceChange24hBpsColumn,
};

/** The token part of a list row (see tokenListColumns). */
export type TokenListFields = Pick<TokenRow, keyof typeof tokenListColumns>;

export interface TokenListRow {
  token: TokenListFields;
  imageKey: string | null;
  priceChange24hBps: number | null;
}

export const boundDraftJoin = eq(metadataDrafts.id, tokens.draftId);

export type TokenRow = typeof tokens.$inferSelect;

/** Bound images are served by the object route; the path is relative to the service base. */
export function objectPath(key: string): string {
  return `/objects/${key}`;
}

export function toTokenListItem({ token: row, imageKey, priceChange24hBps }: TokenListRow): TokenListItem {
  return {
    address: row.address,
    name: row.name,
    symbol: row.symbol,
    image_url: imageKey ? objectPath(imageKey) : null,
    creator: row.creator,
    created_at: row.createdAt,
    lifecycle: row.lifecycle,
    progress_bps: row.progressBps,
    current_price: row.currentPrice,
    price_change_24h_bps: priceChange24hBps,
    market_cap: row.marketCap,
    volume_24h: row.volume24h,
    trades_24h: row.trades24h,
    holders: row.holders,
  };
}
