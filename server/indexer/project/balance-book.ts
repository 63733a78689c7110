import { sql } from 'drizzle-orm';
import { textArray } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';
import type { DecodedEvent } from '../decode/events';
import { ZERO_ADDRESS } from './state';

/** A stored `balances` row: what the indexer last wrote for a (token, wallet). */
export interface StoredBalance {
  balance: bigint;
  kind: number;
}

/** What the fold reads: the stored row of a (token, wallet) before the range, or null for none. */
export interface BalanceView {
  get(token: string, wallet: string): StoredBalance | null;
}

/** A (token, wallet) whose stored row the book does not know: to be read from the database. */
export interface BalanceKey {
  token: string;
  wallet: string;
}

interface TokenBalances {
  /** Known rows; null marks a wallet read from the database and found without one. */
  wallets: Map<string, StoredBalance | null>;
  /** Every stored row of the token is in `wallets`: a wallet missing from it has none. */
  complete: boolean;
  /** The last plan that changed this token's balances (the database may not hold it yet). */
  seq: number;
}

/**
 * The stored balances the indexer is about to change, kept in memory between ranges so that a
 * write knows which rows are new (appended by COPY), which change and which reach zero, and
 * moves holder counts without reading anything back. The indexer is the only writer of
 * `balances`, as of token states (docs/indexer.md).
 *
 * A token launched while the book watched is complete: a wallet it does not list holds no row,
 * so a cold backfill never reads a balance. Other tokens' wallets are read on first touch.
 * Tokens are evicted whole, least recently changed first, once the book holds more than
 * `maxEntries` wallets, and never while a plan that changed them is uncommitted. Any failed
 * write or rollback clears the book.
 */
export function createBalanceBook(maxEntries: number) {
  const tokens = new Map<string, TokenBalances>();
  let entries = 0;

  const view: BalanceView = {
    get(token, wallet) {
      const held = tokens.get(token);
      const row = held?.wallets.get(wallet);
      if (row !== undefined) return row;
      if (held?.complete) return null;
      throw new Error(`balance of ${wallet} in ${token} was not loaded before the fold`);
    },
  };

  function entryOf(token: string, complete: boolean, seq: number): TokenBalances {
    let held = tokens.get(token);
    if (!held) {
      held = { wallets: new Map(), complete, seq };
      tokens.set(token, held);
    }
    return held;
  }

  function set(held: TokenBalances, wallet: string, row: StoredBalance | null) {
    const had = held.wallets.has(wallet);
    if (row === null && held.complete) {
      if (had) {
        held.wallets.delete(wallet);
        entries--;
      }
      return;
    }
    held.wallets.set(wallet, row);
    if (!had) entries++;
  }

  return {
    view,
    get size() {
      return entries;
    },
    get tokens() {
      return tokens.size;
    },

    /**
     * The (token, wallet)s these events' Transfers move whose stored row is unknown. Tokens
     * `launched` in the same events are new (no rows): none of theirs are asked for.
     */
    unknown(events: readonly DecodedEvent[], launched: ReadonlySet<string>): BalanceKey[] {
      const asked = new Map<string, Set<string>>();
      // Transfers of one token come in runs: the token is looked up once per run.
      let token = '';
      let held: TokenBalances | undefined;
      let skip = true;
      let wallets: Set<string> | undefined;
      const ask = (wallet: string) => {
        if (held?.wallets.has(wallet)) return;
        if (!wallets) {
          wallets = new Set();
          asked.set(token, wallets);
        }
        wallets.add(wallet);
      };
      for (const event of events) {
        if (event.type !== 'transfer') continue;
        if (event.token !== token) {
          token = event.token;
          held = tokens.get(token);
          skip = launched.has(token) || held?.complete === true;
          wallets = asked.get(token);
        }
        if (skip) continue;
        if (event.from !== ZERO_ADDRESS) ask(event.from);
        ask(event.to);
      }
      const result: BalanceKey[] = [];
      for (const [token, wallets] of asked) for (const wallet of wallets) result.push({ token, wallet });
      return result;
    },

    /** Rows read from the database for `keys`; a key without a row is recorded as none. */
    load(keys: readonly BalanceKey[], rows: readonly (BalanceKey & StoredBalance)[]) {
      for (const { token, wallet } of keys) set(entryOf(token, false, 0), wallet, null);
      for (const { token, wallet, balance, kind } of rows)
        set(entryOf(token, false, 0), wallet, { balance, kind });
    },

    /** A plan's outcome, folded but maybe not yet committed; `seq` orders plans. */
    remember(
      plan: {
        launches: readonly { event: { token: string } }[];
        balances: readonly { token: string; wallet: string; after: bigint; kind: number }[];
      },
      seq: number,
    ) {
      for (const { event } of plan.launches) entryOf(event.token, true, seq);
      for (const { token, wallet, after, kind } of plan.balances) {
        const held = tokens.get(token);
        if (!held) throw new Error(`balances of ${token} changed without being loaded`);
        set(held, wallet, after === 0n ? null : { balance: after, kind });
        held.seq = seq;
        // Most recently changed last: eviction walks from the front.
        tokens.delete(token);
        tokens.set(token, held);
      }
    },

    /** Drops the least recently changed tokens whose plans are all committed, down to the bound. */
    evict(committedSeq: number) {
      for (const [token, held] of tokens) {
        if (entries <= maxEntries) return;
        if (held.seq > committedSeq) continue;
        tokens.delete(token);
        entries -= held.wallets.size;
      }
    },

    clear() {
      tokens.clear();
      entries = 0;
    },
  };
}
export type BalanceBook = ReturnType<typeof createBalanceBook>;

/**
 * Makes the book answer for every (token, wallet) these events move: reads the unknown ones
 * from the database (committed rows: a row a pending plan changed is in the book already).
 * Returns how many were read.
 */
export async function loadBalances(
  db: Database,
  book: BalanceBook,
  events: readonly DecodedEvent[],
): Promise<number> {
  const launched = new Set<string>();
  for (const event of events) if (event.type === 'launch') launched.add(event.token);
  const keys = book.unknown(events, launched);
  if (keys.length === 0) return 0;
  const rows = await selectRows<{ token: string; wallet: string; balance: string; kind: number }>(
    db,
    sql`select b.token_address as token, b.wallet, b.balance::text as balance, b.kind
          from unnest(${textArray(keys.map((k) => k.token))}, ${textArray(keys.map((k) => k.wallet))}) as k(token, wallet)
          join balances b on b.token_address = k.token and b.wallet = k.wallet`,
  );
  book.load(
    keys,
    rows.map((row) => ({
      token: row.token,
      wallet: row.wallet,
      balance: BigInt(row.balance),
      kind: row.kind,
    })),
  );
  return keys.length;
}
