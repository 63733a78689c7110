import { getTableColumns, sql } from 'drizzle-orm';
import { copyLines, stagedRelation, stagingTable } from '../../db/bulk';
import type { Database } from '../../db/client';
import { traders } from '../../db/schema';
import { nonKeyNames, primaryKeyNames } from '../../db/table-columns';
import type { BatchPlan } from './fold';
import { journaledTables, recordBefore } from './journal';
import type { TraderRow } from './traders';

const nullable = (v: number | null) => (v === null ? '\\N' : String(v));
const flag = (v: boolean) => (v ? 't' : 'f');

/**
 * Each `traders` column's COPY text from a row, keyed like the schema (a column added there
 * fails typecheck until it is written here). Hex, integers and booleans need no escaping.
 */
const columnText = {
  tokenAddress: (r) => r.token,
  wallet: (r) => r.wallet,
  bought: (r) => String(r.bought),
  sold: (r) => String(r.sold),
  quoteSpent: (r) => String(r.quoteSpent),
  quoteReceived: (r) => String(r.quoteReceived),
  volume: (r) => String(r.quoteSpent + r.quoteReceived),
  balance: (r) => String(r.balance),
  costBasis: (r) => String(r.costBasis),
  realizedPnl: (r) => String(r.realizedPnl),
  buys: (r) => String(r.buys),
  sells: (r) => String(r.sells),
  firstTradeBlock: (r) => nullable(r.firstTradeBlock),
  firstTradeAt: (r) => nullable(r.firstTradeAt),
  lastTradeBlock: (r) => nullable(r.lastTradeBlock),
  lastTradeAt: (r) => nullable(r.lastTradeAt),
  isCreator: (r) => flag(r.isCreator),
  sniper: (r) => flag(r.sniper),
  bundler: (r) => flag(r.bundler),
  creatorLinked: (r) => flag(r.creatorLinked),
} satisfies { [K in keyof typeof traders.$inferSelect]: (r: TraderRow) => string };

// The COPY list and the line follow the schema's column order.
const columns = Object.entries(getTableColumns(traders)).map(([key, column]) => ({
  name: column.name,
  text: columnText[key as keyof typeof columnText],
}));
const traderNames = columns.map((c) => c.name);
const conflictKey = primaryKeyNames(traders)
  .map((c) => `"${c}"`)
  .join(', ');
const updates = nonKeyNames(traders)
  .map((c) => `"${c}" = excluded."${c}"`)
  .join(', ');

/** A row as one COPY text line, in the schema's column order. */
export function traderLine(row: TraderRow): string {
  let line = '';
  for (let i = 0; i < columns.length; i++)
    line += (i === 0 ? '' : '\t') + (columns[i] as (typeof columns)[0]).text(row);
  return line;
}

/**
 * The rows the range creates as COPY lines, ordered by token, then wallet descending: a backfill's
 * new rows are mostly wallets that only received the token (zero volume and PnL), whose keys in
 * the sort indexes (token, value desc, wallet desc) then arrive in index order, so the btree
 * inserts walk neighbouring pages instead of random ones (a third less time in a COPY of 91k
 * rows, docs/indexer.md).
 */
function newRowLines(plan: BatchPlan): string[] {
  const rows: TraderRow[] = [];
  for (const { before, after } of plan.traders) if (before === null) rows.push(after);
  rows.sort((a, b) =>
    a.token !== b.token
      ? a.token < b.token
        ? -1
        : 1
      : a.wallet === b.wallet
        ? 0
        : a.wallet < b.wallet
          ? 1
          : -1,
  );
  return rows.map(traderLine);
}

/**
 * Appends the rows the range creates, by COPY without a conflict clause: the book says no row
 * exists (a row that exists after all, a book out of step with the database, fails the key
 * loudly and the indexer reads again). A row a write still in flight creates is not new to this
 * plan (the book holds it), so an unjournaled write appends these with its trades, while the
 * write before it merges.
 */
export async function appendNewTraders(t: Database, plan: BatchPlan): Promise<void> {
  await copyLines(t, 'traders', traderNames, newRowLines(plan));
}

/**
 * Writes the range's trader rows, folded in memory (trader-book.ts): nothing is read back. Rows
 * that existed are upserted from a staging table; new rows are appended here unless
 * `newRowsAppended` (appendNewTraders ran). A journaled write records the before-images first,
 * so its new rows go in only after that (their before-image is none).
 */
export async function writeTraders(
  t: Database,
  plan: BatchPlan,
  seq: number | undefined,
  newRowsAppended: boolean,
): Promise<void> {
  if (seq !== undefined) {
    const keys = await stagedRelation(
      t,
      'trader_keys',
      { token_address: 'text', wallet: 'text' },
      plan.traders.map(({ after }) => `${after.token}\t${after.wallet}`),
    );
    await recordBefore(t, seq, journaledTables.traders, keys);
  }
  if (!newRowsAppended) await appendNewTraders(t, plan);
  const known: string[] = [];
  for (const { before, after } of plan.traders) if (before !== null) known.push(traderLine(after));
  if (known.length > 0) {
    const stage = await stagingTable(t, 'traders');
    await copyLines(t, stage, traderNames, known);
    const list = traderNames.map((name) => `"${name}"`).join(', ');
    await t.execute(
      sql.raw(
        `insert into traders (${list}) select ${list} from "${stage}" on conflict (${conflictKey}) do update set ${updates}`,
      ),
    );
    // The staging table empties at commit (one trader write per transaction).
  }
}
