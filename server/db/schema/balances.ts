import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, smallint } from 'drizzle-orm/pg-core';
import { blockNumber, hex, uint256 } from './columns';

/**
 * What a `balances` row's `kind` says about its wallet: only `holder` rows count as holders. The
 * indexer classifies each row as it writes it; the API reads the kinds (a token's distribution).
 */
export const balanceKind = { holder: 0, curve: 1, pool: 2, burn: 3, launchpad: 4 } as const;

/**
 * Holder rows a token's history segment opens or closes before the next segment starts, at the
 * least (docs/indexer.md, "Balance history"): below it a token never splits its history.
 */
export const HISTORY_SEGMENT_MIN_EVENTS = 10_000;

/**
 * Current balance per (token, wallet); zero balances are deleted so holder counts are row counts.
 * Each row is the open interval of the wallet's balance history (`balance_history` holds the
 * closed ones).
 */
export const balances = pgTable(
  'balances',
  {
    tokenAddress: hex('token_address').notNull(),
    wallet: hex('wallet').notNull(),
    balance: uint256('balance').notNull(),
    /** Curve, pool and burn addresses hold tokens too; they are not holders. */
    kind: smallint('kind').notNull().default(balanceKind.holder),
    /**
     * The block of the row's last change (balance or kind); 0 for a row written before balance
     * history existed. Its interval in the history starts here, or at the token's current
     * history segment when that is later.
     */
    sinceBlock: blockNumber('since_block').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tokenAddress, t.wallet] }),
    index('balances_wallet_idx').on(t.wallet, t.tokenAddress),
    // Top holders: only holder rows, in the order the API pages them; `since_block` in the key so
    // that holders at a block of the current segment filter on it without a heap visit.
    index('balances_holders_idx')
      .on(t.tokenAddress, t.balance.desc().nullsFirst(), t.wallet.desc().nullsFirst(), t.sinceBlock)
      .where(sql`${t.kind} = 0`),
    // The curve, pool, burn and launchpad rows of a token (a handful), for its supply shares:
    // without it a detail read sums them by walking every holder row of the token.
    index('balances_accounts_idx').on(t.tokenAddress, t.kind).where(sql`${t.kind} <> 0`),
  ],
);

/**
 * Closed balance intervals: a (token, wallet) held `balance` (as `kind`) from the end of block
 * `from_block - 1` up to the end of block `to_block - 1`, that is at every block N with
 * from_block <= N < to_block. Appended by the indexer as balances change, never updated; a
 * rollback deletes the rows closed above the block it keeps. A token's rows are cut into
 * segments (`segment`: the block its segment starts at), so that the holders at a block are one
 * walk of one segment's rows in balance order (docs/decisions.md, "Holders at any block").
 */
export const balanceHistory = pgTable(
  'balance_history',
  {
    tokenAddress: hex('token_address').notNull(),
    wallet: hex('wallet').notNull(),
    fromBlock: blockNumber('from_block').notNull(),
    toBlock: blockNumber('to_block').notNull(),
    balance: uint256('balance').notNull(),
    kind: smallint('kind').notNull(),
    segment: blockNumber('segment').notNull(),
  },
  (t) => [
    // Holders at a block: one segment's holder rows in page order, validity read from the key.
    index('balance_history_holders_idx')
      .on(
        t.tokenAddress,
        t.segment,
        t.balance.desc().nullsFirst(),
        t.wallet.desc().nullsFirst(),
        t.fromBlock,
        t.toBlock,
      )
      .where(sql`${t.kind} = 0`),
    // Holdings at a block: a wallet's rows by token, everything the page reads in the key.
    index('balance_history_wallet_idx').on(t.wallet, t.tokenAddress, t.fromBlock, t.toBlock, t.balance),
    // A rollback deletes the rows closed above its block: they are the table's newest pages.
    index('balance_history_to_idx').using('brin', t.toBlock),
  ],
);
