import { sql } from 'drizzle-orm';
import { textArray } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';
import type { DecodedEvent } from '../decode/events';
import { createRowBook, type RowKey, type RowView, setAt } from './row-book';
import { ZERO_ADDRESS } from './state';

/** A stored `balances` row: what the indexer last wrote for a (token, wallet). */
export interface StoredBalance {
  balance: bigint;
  kind: number;
  /** `since_block`: the block of the row's last change. */
  since: number;
}

/** What the fold reads: the stored row of a (token, wallet) before the range, or null for none. */
export type BalanceView = RowView<StoredBalance>;

/** A (token, wallet) whose stored row the book does not know: to be read from the database. */
export type BalanceKey = RowKey;

/**
 * The stored balances the indexer is about to change, kept in memory between ranges (a row book:
 * row-book.ts) so that a write knows which rows are new (appended by COPY), which change and
 * which reach zero, and moves holder counts without reading anything back. The indexer is the
 * only writer of `balances`, as of token states (docs/indexer.md). A token launched while the
 * book watched is complete, so a cold backfill never reads a balance.
 */
export function createBalanceBook(maxEntries: number) {
  const rows = createRowBook<StoredBalance>(maxEntries, 'balance');

  return {
    view: rows.view,
    get size() {
      return rows.size;
    },
    get tokens() {
      return rows.tokens;
    },

    /**
     * The (token, wallet)s these events' Transfers move whose stored row is unknown. Tokens
     * `launched` in the same events are new (no rows): none of theirs are asked for.
     */
    unknown(events: readonly DecodedEvent[], launched: ReadonlySet<string>): BalanceKey[] {
      const asked = new Map<string, Set<string>>();
      // Transfers of one token come in runs: the token is looked up once per run.
      let token = '';
      let skip = true;
      let wallets: Set<string> | undefined;
      const ask = (wallet: string) => {
        if (rows.knows(token, wallet)) return;
        wallets ??= setAt(asked, token);
        wallets.add(wallet);
      };
      for (const event of events) {
        if (event.type !== 'transfer') continue;
        if (event.token !== token) {
          token = event.token;
          skip = launched.has(token) || rows.isComplete(token);
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

    /** The book answers for this (token, wallet) without the database. */
    knows: rows.knows,

    /** Rows read from the database for `keys`; a key without a row is recorded as none. */
    load(keys: readonly BalanceKey[], read: readonly (BalanceKey & StoredBalance)[]) {
      rows.load(
        keys,
        read.map(({ token, wallet, balance, kind, since }) => ({
          token,
          wallet,
          row: { balance, kind, since },
        })),
      );
    },

    /** A plan's outcome, folded but maybe not yet committed; `seq` orders plans. */
    remember(
      plan: {
        launches: readonly { event: { token: string } }[];
        balances: readonly { token: string; wallet: string; after: bigint; kind: number; since: number }[];
      },
      seq: number,
    ) {
      rows.launched(
        plan.launches.map(({ event }) => event.token),
        seq,
      );
      for (const { token, wallet, after, kind, since } of plan.balances)
        rows.remember(token, wallet, after === 0n ? null : { balance: after, kind, since }, seq);
    },

    /** Drops the least recently changed tokens whose plans are all committed, down to the bound. */
    evict: rows.evict,
    clear: rows.clear,
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
  return readBalances(db, book, book.unknown(events, launched));
}

/**
 * Makes the book answer for the traders whose rows a plan opens (trader-book.ts starts such a row
 * from the wallet's balance): a trade's wallet is its token leg's (loaded with the Transfers) but
 * for a swap that moved no tokens, whose recipient no Transfer names. Returns how many were read.
 */
export async function loadTraderBalances(
  db: Database,
  book: BalanceBook,
  plan: {
    launches: readonly { event: { token: string } }[];
    traderOps: readonly (RowKey & { kind: string })[];
  },
): Promise<number> {
  const launched = new Set(plan.launches.map(({ event }) => event.token));
  const asked = new Map<string, RowKey>();
  // Transfers moved their wallet's balance, so the book loaded it already.
  for (const { kind, token, wallet } of plan.traderOps)
    if ((kind === 'buy' || kind === 'sell') && !launched.has(token) && !book.knows(token, wallet))
      asked.set(`${token} ${wallet}`, { token, wallet });
  return readBalances(db, book, [...asked.values()]);
}

async function readBalances(db: Database, book: BalanceBook, keys: readonly BalanceKey[]): Promise<number> {
  if (keys.length === 0) return 0;
  const rows = await selectRows<{
    token: string;
    wallet: string;
    balance: string;
    kind: number;
    since: string | number;
  }>(
    db,
    sql`select b.token_address as token, b.wallet, b.balance::text as balance, b.kind, b.since_block as since
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
      since: Number(row.since),
    })),
  );
  return keys.length;
}
