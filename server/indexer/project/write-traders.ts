import { getTableColumns, sql } from 'drizzle-orm';
import { bulkInsert, copyLines, stagedRelation, stagingTable, textArray } from '../../db/bulk';
import type { Database } from '../../db/client';
import { traders, traderTotals } from '../../db/schema';
import { bulkColumns, columnNames, nonKeyNames, primaryKeyNames } from '../../db/table-columns';
import type { BatchPlan } from './fold';
import { journaledTables, recordBefore } from './journal';
import type { TraderRow } from './traders';

const nullable = (v: number | null) => (v === null ? '\\N' : String(v));
const flag = (v: boolean) => (v ? 't' : 'f');

/** The columns in the order traderLine writes them, which must be the schema's (checked below). */
const lineOrder = [
  'tokenAddress',
  'wallet',
  'bought',
  'sold',
  'quoteSpent',
  'quoteReceived',
  'volume',
  'balance',
  'costBasis',
  'realizedPnl',
  'buys',
  'sells',
  'firstTradeBlock',
  'firstTradeAt',
  'lastTradeBlock',
  'lastTradeAt',
  'isCreator',
  'sniper',
  'bundler',
  'creatorLinked',
] as const satisfies readonly (keyof typeof traders.$inferSelect)[];

const schemaOrder = Object.keys(getTableColumns(traders));
// A column added to or moved in the schema stops the process at load until the line follows it.
if (schemaOrder.join() !== lineOrder.join())
  throw new Error(`traderLine writes ${lineOrder.join()}, the traders schema is ${schemaOrder.join()}`);

const traderNames = columnNames(traders);
const conflictKey = primaryKeyNames(traders)
  .map((c) => `"${c}"`)
  .join(', ');
const updates = nonKeyNames(traders)
  .map((c) => `"${c}" = excluded."${c}"`)
  .join(', ');

/**
 * A row as one COPY text line, in the schema's column order. One template rather than a loop
 * over per-column functions: a backfill writes a line per new row (91k in the benchmark), on the
 * indexer's one thread. Hex, integers and booleans need no escaping.
 */
export function traderLine(r: TraderRow): string {
  return `${r.token}\t${r.wallet}\t${r.bought}\t${r.sold}\t${r.quoteSpent}\t${r.quoteReceived}\t${r.quoteSpent + r.quoteReceived}\t${r.balance}\t${r.costBasis}\t${r.realizedPnl}\t${r.buys}\t${r.sells}\t${nullable(r.firstTradeBlock)}\t${nullable(r.firstTradeAt)}\t${nullable(r.lastTradeBlock)}\t${nullable(r.lastTradeAt)}\t${flag(r.isCreator)}\t${flag(r.sniper)}\t${flag(r.bundler)}\t${flag(r.creatorLinked)}`;
}

/**
 * The rows the range creates as COPY lines, ordered by token, then wallet descending: new rows
 * of one token with equal values (a fresh trader's first sell realizes little) then reach the
 * sort indexes (token, value desc, wallet desc) in index order, and the btree inserts walk
 * neighbouring pages instead of random ones. Not while those indexes are deferred: then there
 * is nothing to walk.
 */
function newRowLines(plan: BatchPlan): string[] {
  const rows: TraderRow[] = [];
  for (const { before, after } of plan.traders) if (before === null) rows.push(after);
  if (plan.tradersInIndexOrder)
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
  await mergeTraderTotals(t, plan, seq);
}

const totalsColumns = bulkColumns(traderTotals);
const totalsNames = Object.keys(totalsColumns).slice(1);

/** A row's share of its token's totals, in the order of trader_totals' columns after the key. */
function shareOf(r: TraderRow | null): bigint[] {
  if (r === null) return [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n];
  const labelled = (flag: boolean) => (flag ? [1n, r.balance] : [0n, 0n]);
  const cluster = r.isCreator || r.creatorLinked;
  return [
    ...labelled(r.sniper),
    ...labelled(r.bundler),
    ...labelled(r.creatorLinked),
    cluster ? r.bought : 0n,
    cluster ? r.sold : 0n,
  ];
}

/**
 * What the range's row changes add to each token's totals (after − before, per row): the risk
 * summary's sums follow every labelled row without reading one. Tokens whose totals the range
 * leaves as they were are not listed.
 */
export function totalsDeltas(plan: Pick<BatchPlan, 'traders'>): Map<string, bigint[]> {
  const deltas = new Map<string, bigint[]>();
  for (const { before, after } of plan.traders) {
    const was = shareOf(before);
    const now = shareOf(after);
    let delta = deltas.get(after.token);
    for (let i = 0; i < now.length; i++) {
      const d = (now[i] as bigint) - (was[i] as bigint);
      if (d === 0n) continue;
      if (!delta) {
        delta = [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n];
        deltas.set(after.token, delta);
      }
      delta[i] = (delta[i] as bigint) + d;
    }
  }
  for (const [token, delta] of deltas) if (delta.every((d) => d === 0n)) deltas.delete(token);
  return deltas;
}

/** Adds the range's deltas onto trader_totals (journaled first when a reorg may undo the write). */
async function mergeTraderTotals(t: Database, plan: BatchPlan, seq: number | undefined): Promise<void> {
  const deltas = totalsDeltas(plan);
  if (deltas.size === 0) return;
  if (seq !== undefined)
    await recordBefore(
      t,
      seq,
      journaledTables.traderTotals,
      sql`(select unnest(${textArray([...deltas.keys()])}) as token_address) s`,
    );
  await bulkInsert(
    t,
    'trader_totals',
    totalsColumns,
    [...deltas].map(([token, delta]) => ({
      token_address: token,
      ...Object.fromEntries(totalsNames.map((name, i) => [name, delta[i]])),
    })),
    `on conflict (token_address) do update set ${totalsNames.map((c) => `"${c}" = trader_totals."${c}" + excluded."${c}"`).join(', ')}`,
  );
}
