import { sql } from 'drizzle-orm';
import {
  boolean,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { lifecycles, tradeSources } from '../../../shared/api/enums';
import { HISTORY_SEGMENT_MIN_EVENTS } from './balances';
import { blockNumber, hex, uint256, unixSeconds } from './columns';

/**
 * One row per launched token: identity, creation provenance, curve state, graduation and the
 * metrics every list sorts by. Written only by the indexer, except the moderation and metadata
 * binding columns, which mirror `token_exclusions` and bound `metadata_drafts` so that list
 * queries stay single-table index scans.
 */
export const tokens = pgTable(
  'tokens',
  {
    address: hex('address').primaryKey(),
    curveAddress: hex('curve_address').notNull(),
    creator: hex('creator').notNull(),
    name: text('name').notNull(),
    symbol: text('symbol').notNull(),
    /** NFKC-folded, lowercased, trimmed: what search prefixes are matched against. */
    nameSearch: text('name_search').notNull(),
    symbolSearch: text('symbol_search').notNull(),
    decimals: smallint('decimals').notNull().default(18),
    totalSupply: uint256('total_supply').notNull(),
    metadataHash: hex('metadata_hash').notNull(),

    createdBlock: blockNumber('created_block').notNull(),
    createdBlockHash: hex('created_block_hash').notNull(),
    createdAt: unixSeconds('created_at').notNull(),
    createdTransactionHash: hex('created_transaction_hash').notNull(),
    createdTransactionIndex: integer('created_transaction_index').notNull(),
    createdLogIndex: integer('created_log_index').notNull(),

    lifecycle: text('lifecycle', { enum: lifecycles }).notNull().default('curve'),
    virtualTokenReserve: uint256('virtual_token_reserve').notNull(),
    virtualReserve: uint256('virtual_reserve').notNull(),
    realTokenReserve: uint256('real_token_reserve').notNull(),
    realReserve: uint256('real_reserve').notNull(),
    graduationThreshold: uint256('graduation_threshold').notNull(),
    /** Tokens the curve offered at launch; sold = curve_supply - real_token_reserve. */
    curveSupply: uint256('curve_supply').notNull(),
    protocolFeeBps: integer('protocol_fee_bps').notNull().default(0),
    creatorFeeBps: integer('creator_fee_bps').notNull().default(0),
    /** real_reserve / graduation_threshold in basis points, capped at 10000. */
    progressBps: integer('progress_bps').notNull().default(0),

    poolAddress: hex('pool_address'),
    graduatedBlock: blockNumber('graduated_block'),
    graduatedAt: unixSeconds('graduated_at'),
    graduatedTransactionHash: hex('graduated_transaction_hash'),
    graduationTokenAmount: uint256('graduation_token_amount'),
    graduationReserveAmount: uint256('graduation_reserve_amount'),
    /** Tokens sent to the burn address at graduation (they never circulate). */
    burnedAmount: uint256('burned_amount').notNull().default(sql`0`),

    currentPrice: uint256('current_price').notNull().default(sql`0`),
    marketCap: uint256('market_cap').notNull().default(sql`0`),
    fullyDilutedValue: uint256('fully_diluted_value').notNull().default(sql`0`),
    volume24h: uint256('volume_24h').notNull().default(sql`0`),
    trades24h: integer('trades_24h').notNull().default(0),
    traders24h: integer('traders_24h').notNull().default(0),
    trendingScore: doublePrecision('trending_score').notNull().default(0),
    tradeCount: integer('trade_count').notNull().default(0),
    totalVolume: uint256('total_volume').notNull().default(sql`0`),
    holders: integer('holders').notNull().default(0),
    lastTradeAt: unixSeconds('last_trade_at'),
    lastTradeSource: text('last_trade_source', { enum: tradeSources }),
    /** The block the token's current balance history segment starts at (schema/balances.ts). */
    historySegment: blockNumber('history_segment').notNull().default(0),
    /** Holder rows the current segment may still open or close before the next one starts. */
    historyCountdown: integer('history_countdown').notNull().default(HISTORY_SEGMENT_MIN_EVENTS),

    excluded: boolean('excluded').notNull().default(false),
    draftId: text('draft_id'),
    hasLinks: boolean('has_links').notNull().default(false),
  },
  (t) => [
    // Every list is a keyset walk over one partial index: WHERE matches, ORDER BY is the index
    // order, and the cursor is the last row's key, so page N costs the same as page 1. All key
    // columns sort the same way so `(a, b) < (x, y)` is a single index range condition.
    index('tokens_new_idx')
      .on(t.createdBlock.desc().nullsFirst(), t.createdLogIndex.desc().nullsFirst())
      .where(sql`not ${t.excluded}`),
    index('tokens_top_idx')
      .on(t.marketCap.desc().nullsFirst(), t.address.desc().nullsFirst())
      .where(sql`not ${t.excluded}`),
    index('tokens_near_idx')
      .on(t.progressBps.desc().nullsFirst(), t.address.desc().nullsFirst())
      .where(sql`not ${t.excluded} and ${t.lifecycle} = 'curve'`),
    index('tokens_linked_idx')
      .on(t.createdBlock.desc().nullsFirst(), t.createdLogIndex.desc().nullsFirst())
      .where(sql`not ${t.excluded} and ${t.hasLinks}`),
    index('tokens_trending_idx')
      .on(t.trendingScore.desc().nullsFirst(), t.address.desc().nullsFirst())
      .where(sql`not ${t.excluded} and ${t.trendingScore} > 0`),
    index('tokens_creator_idx').on(
      t.creator,
      t.createdBlock.desc().nullsFirst(),
      t.createdLogIndex.desc().nullsFirst(),
    ),
    index('tokens_address_prefix_idx').on(t.address.op('text_pattern_ops')),
    index('tokens_pool_idx').on(t.poolAddress).where(sql`${t.poolAddress} is not null`),
    // Recently traded tokens: the set whose 24 h metrics must be refreshed as time moves on.
    index('tokens_last_trade_idx').on(t.lastTradeAt).where(sql`${t.lastTradeAt} is not null`),
  ],
);

/**
 * Search terms, one row per (term, token): the symbol, the whole name, each word of the name.
 * A prefix LIKE over `text_pattern_ops` is an index range scan whatever the table size; the
 * address prefix is served by `tokens_address_prefix_idx`.
 */
export const tokenSearchTerms = pgTable(
  'token_search_terms',
  {
    term: text('term').notNull(),
    tokenAddress: hex('token_address').notNull(),
    /** 0 symbol, 1 whole name, 2 a word of the name: lower ranks first. */
    kind: smallint('kind').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tokenAddress, t.term, t.kind] }),
    // kind is in the index so a prefix search is an index-only scan.
    index('token_search_terms_prefix_idx').on(t.term.op('text_pattern_ops'), t.tokenAddress, t.kind),
  ],
);

/** Operator moderation: survives re-indexing because the indexer never writes it. */
export const tokenExclusions = pgTable('token_exclusions', {
  tokenAddress: hex('token_address').primaryKey(),
  reason: text('reason').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Per-creator aggregates over canonical launches. */
export const creators = pgTable('creators', {
  address: hex('address').primaryKey(),
  tokensLaunched: integer('tokens_launched').notNull().default(0),
  tokensGraduated: integer('tokens_graduated').notNull().default(0),
  firstLaunchAt: unixSeconds('first_launch_at').notNull(),
  lastLaunchAt: unixSeconds('last_launch_at').notNull(),
  totalVolume: uint256('total_volume').notNull().default(sql`0`),
});
