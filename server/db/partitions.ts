import { sql } from 'drizzle-orm';
import { type Database, selectRows } from './client';

/**
 * The append-only tables are partitioned by block range (migration 0004), so that appends land in
 * the newest partition, small and in memory, instead of in free space left all over a heap of
 * hundreds of millions of rows (docs/benchmarks.md measured COPY 3–6× slower there), and so
 * that a rollback or a range read touches only the partitions of its blocks.
 */
export const blockPartitionedTables = ['trades', 'chain_events'] as const;

/**
 * Blocks per partition: about 23 days of a 2 s chain, 139 of a 12 s one. Partitions start at
 * multiples of it; rows older than the migration sit in one partition below the first multiple
 * above them (`<table>_legacy`). The migration holds the same number.
 */
export const PARTITION_BLOCKS = 1_000_000;

// Serializes partition creation between processes (any fixed number; the others are the
// migration's and the indexer leader's).
const PARTITION_LOCK_ID = 0x7061727469n;

/** A partition's block bounds, [from, to); MINVALUE and MAXVALUE as infinities. */
interface Bounds {
  from: number;
  to: number;
}

function parseBound(value: string): number {
  if (value === 'MINVALUE') return Number.NEGATIVE_INFINITY;
  if (value === 'MAXVALUE') return Number.POSITIVE_INFINITY;
  return Number(value.replace(/'/g, ''));
}

async function readBounds(db: Database, table: string): Promise<Bounds[]> {
  const rows = await selectRows<{ bound: string }>(
    db,
    sql`select pg_get_expr(c.relpartbound, c.oid) as bound
          from pg_inherits i join pg_class c on c.oid = i.inhrelid
         where i.inhparent = ${table}::regclass`,
  );
  return rows.flatMap(({ bound }) => {
    const match = /FROM \((.+)\) TO \((.+)\)/.exec(bound);
    return match ? [{ from: parseBound(match[1] as string), to: parseBound(match[2] as string) }] : [];
  });
}

/** The parts of [from, to) no partition in `bounds` covers. */
export function uncovered(from: number, to: number, bounds: readonly Bounds[]): Bounds[] {
  const gaps: Bounds[] = [];
  let at = from;
  for (const b of [...bounds].sort((x, y) => x.from - y.from)) {
    if (b.to <= at) continue;
    if (b.from >= to) break;
    if (b.from > at) gaps.push({ from: at, to: b.from });
    at = Math.max(at, b.to);
    if (at >= to) break;
  }
  if (at < to) gaps.push({ from: at, to });
  return gaps;
}

/**
 * Makes sure rows of blocks [fromBlock, toBlock] have partitions to land in, creating the
 * missing windows of PARTITION_BLOCKS (clipped where older partitions already cover part of
 * one). Windows already seen covered are not asked about again, so the indexer may call this
 * before every write. Creation is a table created apart and then attached: attaching takes a
 * lock on the parent that readers and writers pass, where `create table … partition of`
 * would block every read of the table until the transaction ends.
 */
export function createPartitionKeeper(db: Database) {
  const covered = new Set<number>();
  return {
    async ensure(fromBlock: number, toBlock: number): Promise<void> {
      const windows: number[] = [];
      for (
        let start = Math.floor(fromBlock / PARTITION_BLOCKS) * PARTITION_BLOCKS;
        start <= toBlock;
        start += PARTITION_BLOCKS
      )
        if (!covered.has(start)) windows.push(start);
      if (windows.length === 0) return;
      await db.transaction(async (tx) => {
        const t = tx as unknown as Database;
        await t.execute(sql`select pg_advisory_xact_lock(${PARTITION_LOCK_ID.toString()}::bigint)`);
        for (const table of blockPartitionedTables) {
          const bounds = await readBounds(t, table);
          for (const start of windows) {
            for (const gap of uncovered(start, start + PARTITION_BLOCKS, bounds)) {
              const name = `${table}_from_${gap.from}`;
              await t.execute(
                sql.raw(`create table "${name}" (like "${table}" including defaults including constraints)`),
              );
              await t.execute(
                sql.raw(
                  `alter table "${table}" attach partition "${name}" for values from (${gap.from}) to (${gap.to})`,
                ),
              );
            }
          }
        }
      });
      for (const start of windows) covered.add(start);
    },
  };
}
export type PartitionKeeper = ReturnType<typeof createPartitionKeeper>;
