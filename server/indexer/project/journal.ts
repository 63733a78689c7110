import { type SQL, sql } from 'drizzle-orm';
import type { Checkpoint } from '../../db/checkpoint';
import { type Database, selectRows } from '../../db/client';
import { balances, candles, creators, tokens as tokensTable, traders, traderTotals } from '../../db/schema';
import { nonKeyNames, primaryKeyNames } from '../../db/table-columns';
import { restoredTokenColumns } from './token-rows';

/**
 * The undo journal. Each projection rule lives once, in the fold and the writer; a rollback does
 * not know any of them. A write of blocks a reorg may still replace records, before it changes
 * anything, the rows it will change in place as they were (the before-images), and the
 * checkpoint it started from. Undoing writes puts those rows back, deletes the rows they
 * appended (by block number) or created (a before-image of null), and moves the checkpoint back:
 * the index is then exactly what it was before the first undone write.
 */

/** A table the writer changes in place: its key, and the columns only the indexer writes. */
interface JournaledTable {
  name: string;
  key: readonly string[];
  /** What a rollback restores; other columns (moderation, bound metadata) are not the indexer's. */
  restore: readonly string[];
}

const table = (name: string, key: readonly string[], restore: readonly string[]): JournaledTable => ({
  name,
  key,
  restore,
});

/** Keys and restore lists read from the schema: all but tokens are the indexer's whole. */
export const journaledTables = {
  tokens: table('tokens', primaryKeyNames(tokensTable), restoredTokenColumns),
  balances: table('balances', primaryKeyNames(balances), nonKeyNames(balances)),
  candles: table('candles', primaryKeyNames(candles), nonKeyNames(candles)),
  creators: table('creators', primaryKeyNames(creators), nonKeyNames(creators)),
  traders: table('traders', primaryKeyNames(traders), nonKeyNames(traders)),
  traderTotals: table('trader_totals', primaryKeyNames(traderTotals), nonKeyNames(traderTotals)),
} as const;

const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

/** Opens the journal entry of one write; returns its sequence number. */
export async function beginJournaledWrite(
  t: Database,
  range: { from: number; to: number },
  previous: Checkpoint | undefined,
): Promise<number> {
  const [row] = await selectRows<{ seq: string | number }>(
    t,
    sql`insert into projection_writes (from_block, to_block, previous_block, previous_hash, previous_timestamp)
        values (${range.from}, ${range.to}, ${previous?.indexedThroughBlock ?? null}, ${previous?.blockHash ?? null}, ${previous?.blockTimestamp ?? null})
        returning seq`,
  );
  return Number(row?.seq);
}

/**
 * Records the before-images of the rows of `target` whose keys `keys` lists (a relation named
 * `s` with the key columns, duplicates allowed): the row as JSON, or null where none exists yet.
 */
export async function recordBefore(
  t: Database,
  seq: number,
  target: JournaledTable,
  keys: SQL,
): Promise<void> {
  const keyColumns = target.key.map((c) => `s."${c}"`).join(', ');
  const keyJson = target.key.map((c) => `'${c}', k."${c}"`).join(', ');
  const join = target.key.map((c) => `x."${c}" = k."${c}"`).join(' and ');
  await t.execute(sql`insert into projection_journal (write_seq, table_name, key, before)
    select ${seq}, ${target.name}, jsonb_build_object(${sql.raw(keyJson)}), to_jsonb(x)
      from (select distinct ${sql.raw(keyColumns)} from ${keys}) k
      left join ${sql.raw(`"${target.name}"`)} x on ${sql.raw(join)}`);
}

/** Drops the journal of writes a reorg can no longer reach. */
export async function pruneJournal(t: Database, finalBlock: number): Promise<void> {
  await t.execute(sql`delete from projection_writes where to_block < ${finalBlock}`);
}

export interface UndonePlan {
  /**
   * The first write to undo; every later one goes too (writes are journaled in chain order, so
   * every write after one that ends above the ancestor ends above it as well).
   */
  firstSeq: number;
  writes: number;
  /** The checkpoint before the first undone write; undefined when that write was the first. */
  target: Checkpoint | undefined;
  /** The first undone write's first block: every row from it on goes. */
  fromBlock: number;
}

/**
 * The journaled writes to undo to go back to `ancestor` or below, or null when a write above the
 * ancestor was not journaled (it was final when written; the reorg is deeper than the finality).
 */
export async function writesAbove(t: Database, ancestor: number): Promise<UndonePlan | null> {
  const [first] = await selectRows<{
    seq: string | number;
    from_block: string | number;
    previous_block: string | number | null;
    previous_hash: string | null;
    previous_timestamp: string | number | null;
    writes: string | number;
  }>(
    t,
    sql`select seq, from_block, previous_block, previous_hash, previous_timestamp, count(*) over () as writes
          from projection_writes where to_block > ${ancestor} order by seq limit 1`,
  );
  if (!first || Number(first.from_block) > ancestor + 1) return null;
  return {
    firstSeq: Number(first.seq),
    writes: Number(first.writes),
    fromBlock: Number(first.from_block),
    target:
      first.previous_block === null
        ? undefined
        : {
            indexedThroughBlock: Number(first.previous_block),
            blockHash: String(first.previous_hash),
            blockTimestamp: Number(first.previous_timestamp),
          },
  };
}

/**
 * Puts the rows of `target` back as the writes from `firstSeq` on found them: for each key, the
 * before-image of the earliest of them that touched it; rows they created are deleted.
 */
export async function restoreBefore(t: Database, firstSeq: number, target: JournaledTable): Promise<void> {
  const earliest = sql`(select distinct on (key) key, before from projection_journal
      where write_seq >= ${firstSeq} and table_name = ${target.name}
      order by key, write_seq) j`;
  const name = sql.raw(`"${target.name}"`);
  const keyMatch = sql.raw(target.key.map((c) => `x."${c}" = k."${c}"`).join(' and '));
  await t.execute(sql`delete from ${name} x
    using (select (jsonb_populate_record(null::${name}, j.key)).* from ${earliest} where j.before is null) k
    where ${keyMatch}`);
  // Whole rows go in (a deleted row comes back complete); on an existing row only the
  // indexer's columns are restored.
  const updates = sql.raw(target.restore.map((c) => `"${c}" = excluded."${c}"`).join(', '));
  await t.execute(sql`insert into ${name}
    select (jsonb_populate_record(null::${name}, j.before)).* from ${earliest} where j.before is not null
    on conflict (${sql.raw(quoted(target.key))}) do update set ${updates}`);
}
