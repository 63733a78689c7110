import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core';
import { blockNumber, hex, uint256, unixSeconds } from './columns';

/**
 * Per (token, wallet) trading position, kept by the indexer's fold and rolled back by its undo
 * journal (docs/api.md "Traders, PnL and labels" defines every column). Amounts are 18-decimal
 * base units; `realized_pnl` may be negative (numeric holds a sign).
 */
export const traders = pgTable(
  'traders',
  {
    tokenAddress: hex('token_address').notNull(),
    wallet: hex('wallet').notNull(),
    bought: uint256('bought').notNull(),
    sold: uint256('sold').notNull(),
    quoteSpent: uint256('quote_spent').notNull(),
    quoteReceived: uint256('quote_received').notNull(),
    /** quote_spent + quote_received, stored for the `volume` sort's index. */
    volume: uint256('volume').notNull(),
    /** Position: bought − sold + received − sent (trade legs are not transfers). */
    balance: uint256('balance').notNull(),
    /** Average-cost basis of `balance`, in quote units. */
    costBasis: uint256('cost_basis').notNull(),
    realizedPnl: uint256('realized_pnl').notNull(),
    buys: integer('buys').notNull(),
    sells: integer('sells').notNull(),
    firstTradeBlock: blockNumber('first_trade_block'),
    firstTradeAt: unixSeconds('first_trade_at'),
    lastTradeBlock: blockNumber('last_trade_block'),
    lastTradeAt: unixSeconds('last_trade_at'),
    isCreator: boolean('is_creator').notNull(),
    sniper: boolean('sniper').notNull(),
    bundler: boolean('bundler').notNull(),
    creatorLinked: boolean('creator_linked').notNull(),
  },
  (t) => [
    // Wallet first: the key also serves a wallet's PnL pages (by token address).
    primaryKey({ columns: [t.wallet, t.tokenAddress] }),
    // One index per sort of /tokens/{address}/traders, in its keyset order (value, wallet) desc.
    index('traders_pnl_idx').on(
      t.tokenAddress,
      t.realizedPnl.desc().nullsFirst(),
      t.wallet.desc().nullsFirst(),
    ),
    index('traders_volume_idx').on(
      t.tokenAddress,
      t.volume.desc().nullsFirst(),
      t.wallet.desc().nullsFirst(),
    ),
    index('traders_balance_idx').on(
      t.tokenAddress,
      t.balance.desc().nullsFirst(),
      t.wallet.desc().nullsFirst(),
    ),
    // The labelled wallets of a token (few: launch-window buyers and the creator's recipients),
    // for the detail's risk summary without walking every trader of a busy token.
    index('traders_labelled_idx')
      .on(t.tokenAddress)
      .where(sql`${t.sniper} or ${t.bundler} or ${t.creatorLinked}`),
  ],
);
