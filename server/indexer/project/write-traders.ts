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
 * Writes the range's trader rows, folded in memory (trader-book.ts): nothing is read back. Rows
 * that did not exist go in by COPY without a conflict clause (most rows of a backfill are new;
 * a row that exists after all, a book out of step with the database, fails the key loudly and
 * the indexer reads again); rows that existed are upserted from a staging table.
 */
export async function writeTraders(t: Database, plan: BatchPlan, seq: number | undefined): Promise<void> {
  if (seq !== undefined) {
    const keys = await stagedRelation(
      t,
      'trader_keys',
      { token_address: 'text', wallet: 'text' },
      plan.traders.map(({ after }) => `${after.token}\t${after.wallet}`),
    );
    await recordBefore(t, seq, journaledTables.traders, keys);
  }
  const fresh: string[] = [];
  const known: string[] = [];
  for (const { before, after } of plan.traders) (before === null ? fresh : known).push(traderLine(after));
  await copyLines(t, 'traders', traderNames, fresh);
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
