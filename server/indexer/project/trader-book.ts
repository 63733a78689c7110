import { sql } from 'drizzle-orm';
import { textArray } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';
import type { StoredBalance } from './balance-book';
import type { BatchPlan, TraderChange } from './fold';
import { createRowBook, type RowBook, type RowKey, type RowView } from './row-book';
import { applyTraderOps, type LabelParams, type TraderRow, type TraderToken } from './traders';

/**
 * The stored `traders` rows the indexer is about to change, beside the balance book (same
 * bounds and rules: row-book.ts). Average cost depends on the order of a wallet's trades, so a
 * row cannot be merged in SQL by adding deltas; with the rows in memory the range's ops are
 * applied here and the writer only writes (no read back, no upsert of rows it knows are new).
 */
export function createTraderBook(maxEntries: number): RowBook<TraderRow> {
  return createRowBook<TraderRow>(maxEntries, 'trader row');
}

/** Plan `seq` was folded: its trader rows are the newest (the database may not hold them yet). */
export function rememberTraders(book: RowBook<TraderRow>, plan: BatchPlan, seq: number): void {
  book.launched(
    plan.launches.map(({ event }) => event.token),
    seq,
  );
  for (const { after } of plan.traders) book.remember(after.token, after.wallet, after, seq);
}

/** A stored row as postgres returns it (numerics as text, bigints as text or number). */
type StoredTrader = Record<string, string | number | boolean | null>;

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** A `traders` row read from the database. */
export function traderFromStored(r: StoredTrader): TraderRow {
  return {
    token: String(r.token_address),
    wallet: String(r.wallet),
    bought: BigInt(String(r.bought)),
    sold: BigInt(String(r.sold)),
    quoteSpent: BigInt(String(r.quote_spent)),
    quoteReceived: BigInt(String(r.quote_received)),
    balance: BigInt(String(r.balance)),
    costBasis: BigInt(String(r.cost_basis)),
    realizedPnl: BigInt(String(r.realized_pnl)),
    buys: Number(r.buys),
    sells: Number(r.sells),
    firstTradeBlock: num(r.first_trade_block),
    firstTradeAt: num(r.first_trade_at),
    lastTradeBlock: num(r.last_trade_block),
    lastTradeAt: num(r.last_trade_at),
    isCreator: Boolean(r.is_creator),
    sniper: Boolean(r.sniper),
    bundler: Boolean(r.bundler),
    creatorLinked: Boolean(r.creator_linked),
  };
}

/**
 * Makes the book answer for every (token, wallet) the plan's trader ops touch: reads the unknown
 * ones from the database (committed rows: a row a pending plan changed is in the book already).
 * Tokens launched in the plan have no rows. Returns how many keys were read.
 */
export async function loadTraders(db: Database, book: RowBook<TraderRow>, plan: BatchPlan): Promise<number> {
  const launched = new Set(plan.launches.map(({ event }) => event.token));
  const asked = new Map<string, RowKey>();
  for (const { token, wallet } of plan.traderOps) {
    if (launched.has(token) || book.knows(token, wallet)) continue;
    asked.set(`${token} ${wallet}`, { token, wallet });
  }
  if (asked.size === 0) return 0;
  const keys = [...asked.values()];
  const rows = await selectRows<StoredTrader>(
    db,
    sql`select x.* from unnest(${textArray(keys.map((k) => k.token))}, ${textArray(keys.map((k) => k.wallet))}) as k(token, wallet)
          join traders x on x.token_address = k.token and x.wallet = k.wallet`,
  );
  book.load(
    keys,
    rows.map((r) => {
      const row = traderFromStored(r);
      return { token: row.token, wallet: row.wallet, row };
    }),
  );
  return keys.length;
}

/**
 * Applies the plan's trader ops, in chain order, onto the rows before the range (`stored`: the
 * book's rows are the before-images and stay as they are) and records each touched row before
 * and after in `plan.traders`. Pure. Labels need each token's creator and launch block, which
 * its post-range state carries; a row that opens, the wallet's balance before the range
 * (`balances`, the balance book's view before this plan).
 */
export function foldTraders(
  plan: BatchPlan,
  stored: RowView<TraderRow>,
  balances: RowView<StoredBalance>,
  params: LabelParams,
  /** The first buys the creator funded (`${token} ${wallet}`: sync/funding-blocks.ts). */
  funded: ReadonlySet<string> = new Set(),
): void {
  if (plan.traderOps.length === 0) return;
  const launched = new Set(plan.launches.map(({ event }) => event.token));
  const tokens = new Map<string, TraderToken>();
  for (const [address, state] of plan.states)
    tokens.set(address, { creator: state.creator, createdBlock: state.createdBlock });
  const before = (token: string, wallet: string) => (launched.has(token) ? null : stored.get(token, wallet));
  const touched = applyTraderOps(plan.traderOps, (token) => tokens.get(token), params, {
    stored: before,
    // The balance book holds every wallet the range's transfers move, and each opening op
    // comes with one (a swap that moved no tokens names its recipient: loadTraderBalances).
    heldBefore: (token, wallet) => (launched.has(token) ? 0n : (balances.get(token, wallet)?.balance ?? 0n)),
    fundedAtFirstBuy: (token, wallet) => funded.has(`${token} ${wallet}`),
  });
  plan.traders = touched.map((after): TraderChange => ({ before: before(after.token, after.wallet), after }));
}
