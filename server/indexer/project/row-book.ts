/** The set `map` holds at `key`, made empty there if it holds none. */
export function setAt<T>(map: Map<string, Set<T>>, key: string): Set<T> {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  return set;
}

/** A (token, wallet) whose stored row a book does not know: to be read from the database. */
export interface RowKey {
  token: string;
  wallet: string;
}

/** What the fold reads: the stored row of a (token, wallet) before the range, or null for none. */
export interface RowView<Row> {
  get(token: string, wallet: string): Row | null;
}

interface TokenRows<Row> {
  /** Known rows; null marks a wallet read from the database and found without one. */
  wallets: Map<string, Row | null>;
  /** Every stored row of the token is in `wallets`: a wallet missing from it has none. */
  complete: boolean;
  /** The last plan that changed this token's rows (the database may not hold it yet). */
  seq: number;
}

/**
 * Stored rows keyed (token, wallet) that the indexer is about to change, kept in memory between
 * ranges so that the fold knows each row before the range and the writer writes without reading
 * anything back. The indexer is the only writer of these tables (docs/indexer.md).
 *
 * A token launched while the book watched is complete: a wallet it does not list holds no row,
 * so a cold backfill reads nothing. Other tokens' wallets are read on first touch. Tokens are
 * evicted whole, least recently changed first, once the book holds more than `maxEntries`
 * rows, and never while a plan that changed them is uncommitted. Any failed write or rollback
 * clears the book. `what` names the rows in errors.
 */
export function createRowBook<Row>(maxEntries: number, what: string) {
  const tokens = new Map<string, TokenRows<Row>>();
  let entries = 0;

  const view: RowView<Row> = {
    get(token, wallet) {
      const held = tokens.get(token);
      const row = held?.wallets.get(wallet);
      if (row !== undefined) return row;
      if (held?.complete) return null;
      throw new Error(`${what} of ${wallet} in ${token} was not loaded before the fold`);
    },
  };

  function entryOf(token: string, complete: boolean, seq: number): TokenRows<Row> {
    let held = tokens.get(token);
    if (!held) {
      held = { wallets: new Map(), complete, seq };
      tokens.set(token, held);
    }
    return held;
  }

  function set(held: TokenRows<Row>, wallet: string, row: Row | null) {
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

    /** The token's rows are all in the book (launched while it watched). */
    isComplete(token: string): boolean {
      return tokens.get(token)?.complete === true;
    },

    /** The book answers for this (token, wallet) without the database. */
    knows(token: string, wallet: string): boolean {
      const held = tokens.get(token);
      return held !== undefined && (held.complete || held.wallets.has(wallet));
    },

    /** Rows read from the database for `keys`; a key without a row is recorded as none. */
    load(keys: readonly RowKey[], rows: readonly (RowKey & { row: Row })[]) {
      for (const { token, wallet } of keys) set(entryOf(token, false, 0), wallet, null);
      for (const { token, wallet, row } of rows) set(entryOf(token, false, 0), wallet, row);
    },

    /** Tokens launched by plan `seq`: they have no stored rows, so the book holds them all. */
    launched(tokensLaunched: Iterable<string>, seq: number) {
      for (const token of tokensLaunched) entryOf(token, true, seq);
    },

    /** A row plan `seq` leaves (null: none), folded but maybe not yet committed. */
    remember(token: string, wallet: string, row: Row | null, seq: number) {
      const held = tokens.get(token);
      if (!held) throw new Error(`${what} of ${token} changed without being loaded`);
      set(held, wallet, row);
      held.seq = seq;
      // Most recently changed last: eviction walks from the front.
      tokens.delete(token);
      tokens.set(token, held);
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
export type RowBook<Row> = ReturnType<typeof createRowBook<Row>>;
