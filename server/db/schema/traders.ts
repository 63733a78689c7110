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
  ],
);

/**
 * Per token, the sums of its labelled `traders` rows the detail's risk summary reads (docs/api.md
 * "Traders, PnL and labels"): one row, however many wallets carry a label. Kept by the writer
 * from each range's row changes (before and after) and rolled back by the undo journal like them.
 * A labelled row's `balance` is its wallet's token balance, so these are supply held now.
 */
export const traderTotals = pgTable('trader_totals', {
  tokenAddress: hex('token_address').primaryKey(),
  sniperWallets: integer('sniper_wallets').notNull(),
  sniperBalance: uint256('sniper_balance').notNull(),
  bundlerWallets: integer('bundler_wallets').notNull(),
  bundlerBalance: uint256('bundler_balance').notNull(),
  linkedWallets: integer('linked_wallets').notNull(),
  linkedBalance: uint256('linked_balance').notNull(),
  /** The creator's cluster (its row and the creator_linked rows): tokens bought and sold. */
  clusterBought: uint256('cluster_bought').notNull(),
  clusterSold: uint256('cluster_sold').notNull(),
});
