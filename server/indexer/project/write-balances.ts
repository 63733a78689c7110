import { type SQL, sql } from 'drizzle-orm';
import { type ColumnType, copyLines, jsonRecordset, stagedRelation, textArray } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';
import { balances } from '../../db/schema';
import { columnNames } from '../../db/table-columns';
import { WriteConflictError } from '../errors';
import type { BatchPlan } from './fold';
import { journaledTables, recordBefore } from './journal';

const balanceNames = columnNames(balances);

/**
 * Writes the range's balance changes. The fold knows each row before and after (balance-book.ts),
 * so nothing is read back: new rows are appended by COPY, changed rows set and emptied rows
 * deleted (holder counts are row counts), and holder counts move by the fold's difference.
 * Sets and deletes only match a row still holding the balance the fold started from: a book out
 * of step with the database fails the write, and the indexer clears it and reads again (a new
 * row that exists fails on the primary key). A wallet's kind only changes when it becomes a
 * token's pool, at graduation: the holder counts of graduating tokens are recounted.
 */
export async function writeBalances(t: Database, plan: BatchPlan, seq: number | undefined) {
  const created: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const { token, wallet, before, after, kind } of plan.balances) {
    if (before === null) {
      if (after !== 0n) created.push(`${token}\t${wallet}\t${after}\t${kind}`);
    } else if (after === 0n) removed.push(`${token}\t${wallet}\t${before.balance}`);
    else if (after !== before.balance || kind !== before.kind)
      changed.push(`${token}\t${wallet}\t${before.balance}\t${after}\t${kind}`);
  }
  if (seq !== undefined) {
    const keys = await stagedRelation(
      t,
      'balance_keys',
      { token_address: 'text', wallet: 'text' },
      plan.balances.map((b) => `${b.token}\t${b.wallet}`),
    );
    await recordBefore(t, seq, journaledTables.balances, keys);
  }
  await copyLines(t, 'balances', balanceNames, created);
  if (changed.length > 0) {
    const source = await stagedRelation(t, 'balance_changes', balanceChangeColumns, changed);
    await expectRows(
      t,
      changed.length,
      sql`update balances b set balance = s.after, kind = s.kind from ${source}
           where b.token_address = s.token_address and b.wallet = s.wallet and b.balance = s.before`,
    );
  }
  if (removed.length > 0) {
    const source = await stagedRelation(t, 'balance_removals', balanceRemovalColumns, removed);
    await expectRows(
      t,
      removed.length,
      sql`delete from balances b using ${source}
           where b.token_address = s.token_address and b.wallet = s.wallet and b.balance = s.before`,
    );
  }
  if (plan.holderChanges.size > 0) {
    const rows = [...plan.holderChanges].map(([address, change]) => ({ address, change }));
    await t.execute(sql`update tokens t set holders = t.holders + x.change
      from ${jsonRecordset(rows, { address: 'text', change: 'integer' })} where t.address = x.address`);
  }
  const graduated = plan.newPools.map(({ token }) => token);
  if (graduated.length > 0) {
    await t.execute(sql`update tokens t set holders = (select count(*) from balances b
        where b.token_address = t.address and b.kind = 0 and b.balance > 0)
      where t.address = any(${textArray(graduated)})`);
  }
}

const balanceChangeColumns = {
  token_address: 'text',
  wallet: 'text',
  before: 'numeric',
  after: 'numeric',
  kind: 'smallint',
} satisfies Record<string, ColumnType>;
const balanceRemovalColumns = {
  token_address: 'text',
  wallet: 'text',
  before: 'numeric',
} satisfies Record<string, ColumnType>;

/** Runs an UPDATE or DELETE that must touch exactly `expected` rows. */
async function expectRows(t: Database, expected: number, statement: SQL) {
  const [row] = await selectRows<{ n: number }>(
    t,
    sql`with done as (${statement} returning 1) select count(*)::int as n from done`,
  );
  if (row?.n !== expected)
    throw new WriteConflictError(
      `balances changed under the indexer: ${row?.n ?? 0} of ${expected} rows held the balance it folded from`,
    );
}
