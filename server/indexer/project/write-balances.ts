import { type SQL, sql } from 'drizzle-orm';
import { type ColumnType, copyLines, jsonRecordset, stagedRelation } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';
import { balanceHistory, balances } from '../../db/schema';
import { columnNames } from '../../db/table-columns';
import { WriteConflictError } from '../errors';
import type { BatchPlan } from './fold';
import { journaledTables, recordBefore } from './journal';

const balanceNames = columnNames(balances);
const historyNames = columnNames(balanceHistory);

/**
 * Writes the range's balance changes. The fold knows each row before and after (balance-book.ts),
 * so nothing is read back: new rows are appended by COPY, changed rows set and emptied rows
 * deleted (holder counts, kept by the fold, are row counts). Sets and deletes only match a row
 * still holding the balance the fold started from: a book out of step with the database fails
 * the write, and the indexer clears it and reads again (a new row that exists fails on the
 * primary key). Then the history cuts of the wallets the range did not move (below).
 */
export async function writeBalances(t: Database, plan: BatchPlan, seq: number | undefined) {
  const created: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const { token, wallet, before, after, kind, since } of plan.balances) {
    if (before === null) {
      if (after !== 0n) created.push(`${token}\t${wallet}\t${after}\t${kind}\t${since}`);
    } else if (after === 0n) removed.push(`${token}\t${wallet}\t${before.balance}`);
    // A balance that moved and came back within the range changed too: its row reopens at its
    // last move (the fold closed the intervals in between).
    else if (after !== before.balance || kind !== before.kind || since !== before.since)
      changed.push(`${token}\t${wallet}\t${before.balance}\t${after}\t${kind}\t${since}`);
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
      sql`update balances b set balance = s.after, kind = s.kind, since_block = s.since from ${source}
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
  if (plan.historySplits.length > 0) await cutUnmoved(t, plan);
}

/**
 * A segment start cuts every interval open across it (balance-history.ts). The fold cut those of
 * the wallets the range moved; the others are the token's rows the range left as they were (their
 * `since_block` before its first block), cut here at each start, in the same rows the fold would
 * have written.
 */
async function cutUnmoved(t: Database, plan: BatchPlan) {
  const starts: { token: string; previous: number; start: number }[] = [];
  for (const { token, from, blocks } of plan.historySplits) {
    let previous = from;
    for (const start of blocks) {
      starts.push({ token, previous, start });
      previous = start;
    }
  }
  await t.execute(sql`insert into balance_history (${sql.raw(historyNames.map((c) => `"${c}"`).join(', '))})
    select b.token_address, b.wallet, greatest(b.since_block, x.previous), x.start, b.balance, b.kind, x.previous
      from ${jsonRecordset(starts, { token: 'text', previous: 'bigint', start: 'bigint' })}
      join balances b on b.token_address = x.token and b.since_block < ${plan.from}`);
}

const balanceChangeColumns = {
  token_address: 'text',
  wallet: 'text',
  before: 'numeric',
  after: 'numeric',
  kind: 'smallint',
  since: 'bigint',
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
