import type { Database } from '../db/client';
import { createBalanceBook } from './project/balance-book';
import type { BatchPlan } from './project/fold';
import type { TokenState } from './project/state';
import { readTokenStates } from './project/token-rows';
import { createTraderBook, rememberTraders } from './project/trader-book';
import { createAddressBook } from './sync/address-book';

/**
 * What the indexer keeps in memory between ranges, as its only writer: post-fold token states,
 * stored balances (project/balance-book.ts), trader rows (project/trader-book.ts) and the address book (sync/address-book.ts). Plans
 * are folded ahead of their commit, so these run ahead of the database; whatever leaves them
 * ahead of it without a commit (a failed write, a rollback) clears them all at once.
 */
export function createProjectionCaches(
  db: Database,
  limits: { tokens: number; balances: number; traders: number; listedAddresses?: number },
) {
  const balances = createBalanceBook(limits.balances);
  const traders = createTraderBook(limits.traders);
  const book = createAddressBook(db, limits.listedAddresses);
  /**
   * Post-fold state of recently touched tokens, oldest first, with the sequence number of the
   * last plan that touched each. An entry touched by an uncommitted plan is never evicted (the
   * database does not hold that state yet).
   */
  const tokens = new Map<string, { state: TokenState; seq: number }>();

  return {
    balances,
    traders,
    book,
    /** The fold's view of token states: the cache, then the database for the rest. */
    async statesFor(addresses: string[]): Promise<Map<string, TokenState>> {
      const states = new Map<string, TokenState>();
      const missing: string[] = [];
      for (const address of addresses) {
        const cached = tokens.get(address);
        if (cached) states.set(address, cached.state);
        else missing.push(address);
      }
      if (missing.length > 0)
        for (const [address, state] of await readTokenStates(db, missing)) states.set(address, state);
      return states;
    },
    /** Plan `seq` was folded: its states and balances are the newest. */
    remember(plan: BatchPlan, seq: number) {
      for (const [address, state] of plan.states) {
        tokens.delete(address);
        tokens.set(address, { state, seq });
      }
      balances.remember(plan, seq);
      rememberTraders(traders, plan, seq);
    },
    /** Plans up to `committedSeq` are in the database: their token states may go. */
    evictTokens(committedSeq: number) {
      for (const [address, entry] of tokens) {
        if (tokens.size <= limits.tokens || entry.seq > committedSeq) break;
        tokens.delete(address);
      }
    },
    /** The database is the truth again (after a rollback or a failed write). */
    clear() {
      tokens.clear();
      balances.clear();
      traders.clear();
      book.reset();
    },
  };
}
export type ProjectionCaches = ReturnType<typeof createProjectionCaches>;
