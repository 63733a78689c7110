import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import { fixtureAddress, fixtureHash } from '../../test/fixtures';
import { type DatabaseHandle, openDatabase, selectRows } from './client';
import { defaultMigrationsFolder, migrateDatabase } from './migrate';
import { blockPartitionedTables, createPartitionKeeper, PARTITION_BLOCKS } from './partitions';
import { chainEvents, trades } from './schema';

const backends = await availableBackends();
const token = fixtureAddress('token', 1);

function tradeAt(block: number, logIndex = 0) {
  return {
    blockNumber: block,
    blockHash: fixtureHash('block', block),
    blockTimestamp: 1_700_000_000 + block,
    transactionHash: fixtureHash('tx', block * 10 + logIndex),
    transactionIndex: 0,
    logIndex,
    tokenAddress: token,
    trader: fixtureAddress('trader', block % 7),
    side: 'buy' as const,
    source: 'curve' as const,
    tokenAmount: 1n,
    reserveAmount: 1n,
    curveValue: 1n,
    protocolFee: 0n,
    creatorFee: 0n,
    price: BigInt(block),
  };
}

function eventAt(block: number, logIndex = 0) {
  const { tokenAddress, blockNumber, blockHash, blockTimestamp, transactionHash, transactionIndex } = tradeAt(
    block,
    logIndex,
  );
  return {
    blockNumber,
    blockHash,
    blockTimestamp,
    transactionHash,
    transactionIndex,
    logIndex,
    tokenAddress,
    kind: 'trade',
    data: { block: String(block) },
  };
}

async function partitionsOf(handle: DatabaseHandle, table: string) {
  return selectRows<{ name: string; bound: string }>(
    handle.db,
    sql`select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
          from pg_inherits i join pg_class c on c.oid = i.inhrelid
         where i.inhparent = ${table}::regclass order by c.relname`,
  );
}

/** The migrations up to (not including) the partitioning one, as a folder of their own. */
function migrationsBeforePartitioning(): { folder: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'launchdex-migrations-'));
  const folder = path.join(dir, 'drizzle');
  cpSync(defaultMigrationsFolder, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((entry) => entry.tag.endsWith('_block_partitions'));
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return { folder, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

describe.each(backends)('block partitions of the append-only tables (%s)', (backend) => {
  describe('on a new database', () => {
    let handle: DatabaseHandle;
    testDatabaseForTests(backend, (opened) => {
      handle = opened.handle;
    });

    it('starts with no partition, refuses rows outside every partition, and creates windows on demand', async () => {
      for (const table of blockPartitionedTables) expect(await partitionsOf(handle, table)).toEqual([]);
      await expect(handle.db.insert(trades).values(tradeAt(10_000_005))).rejects.toThrow();

      const keeper = createPartitionKeeper(handle.db);
      await keeper.ensure(10_000_005, 10_999_999);
      for (const table of blockPartitionedTables) {
        expect(await partitionsOf(handle, table)).toEqual([
          { name: `${table}_from_10000000`, bound: "FOR VALUES FROM ('10000000') TO ('11000000')" },
        ]);
      }
      // A range across a window boundary gets both windows; a second keeper finds them made.
      await keeper.ensure(10_999_990, 11_000_010);
      await createPartitionKeeper(handle.db).ensure(10_500_000, 11_500_000);
      expect((await partitionsOf(handle, 'trades')).map((p) => p.name)).toEqual([
        'trades_from_10000000',
        'trades_from_11000000',
      ]);

      await handle.db.insert(trades).values([tradeAt(10_000_005), tradeAt(10_999_999), tradeAt(11_000_000)]);
      await handle.db.insert(chainEvents).values([eventAt(10_000_005), eventAt(11_000_000)]);
      // Keys are enforced across the whole table (the key holds the partition column).
      await expect(handle.db.insert(trades).values(tradeAt(10_000_005))).rejects.toThrow();
      const rows = await selectRows<{ block_number: string | number }>(
        handle.db,
        sql`select block_number from trades where token_address = ${token} order by block_number desc, log_index desc`,
      );
      expect(rows.map((r) => Number(r.block_number))).toEqual([11_000_000, 10_999_999, 10_000_005]);
    });

    it("reads a token's newest rows from the newest partitions first (an ordered append, no sort)", async () => {
      const plan = await selectRows<{ 'QUERY PLAN': string }>(
        handle.db,
        sql`explain select block_number from trades where token_address = ${token}
              order by block_number desc, log_index desc limit 21`,
      );
      const text = plan.map((row) => Object.values(row)[0]).join('\n');
      expect(text).toContain('Append');
      expect(text).not.toContain('Merge Append');
      expect(text).not.toMatch(/\bSort\b/);
    });
  });

  describe('on a database that held rows before partitioning', () => {
    let database: TestDatabase;
    let handle: DatabaseHandle;
    const earlier = migrationsBeforePartitioning();
    beforeAll(async () => {
      database = await createTestDatabase(backend);
      handle = await openDatabase(database.config, { max: 2 });
      await migrateDatabase(handle, earlier.folder);
      await handle.db.insert(trades).values([tradeAt(5), tradeAt(1_234_567), tradeAt(1_234_567, 3)]);
      await handle.db.insert(chainEvents).values([eventAt(5), eventAt(1_234_567)]);
      await migrateDatabase(handle);
    });
    afterAll(async () => {
      earlier.remove();
      await handle?.close();
      await database?.drop();
    });

    it('keeps every stored row in one partition below the next window, keys and indexes attached', async () => {
      for (const table of blockPartitionedTables) {
        expect(await partitionsOf(handle, table)).toEqual([
          { name: `${table}_legacy`, bound: "FOR VALUES FROM (MINVALUE) TO ('2000000')" },
        ]);
      }
      const stored = await selectRows<{ trades: string | number; events: string | number }>(
        handle.db,
        sql`select (select count(*) from trades) as trades, (select count(*) from chain_events) as events`,
      );
      expect([Number(stored[0]?.trades), Number(stored[0]?.events)]).toEqual([3, 2]);
      // The stored table's key now guards the partitioned table.
      await expect(handle.db.insert(trades).values(tradeAt(1_234_567, 3))).rejects.toThrow();
      const indexes = await selectRows<{ indexname: string }>(
        handle.db,
        sql`select indexname from pg_indexes where tablename = 'trades_legacy' order by indexname`,
      );
      expect(indexes.map((i) => i.indexname)).toEqual([
        'trades_legacy_pk',
        'trades_legacy_token_order_idx',
        'trades_legacy_token_time_idx',
        'trades_legacy_trader_idx',
      ]);
    });

    it('creates only the windows the stored partition does not cover', async () => {
      await createPartitionKeeper(handle.db).ensure(1_500_000, 2 * PARTITION_BLOCKS + 5);
      expect((await partitionsOf(handle, 'chain_events')).map((p) => p.name)).toEqual([
        'chain_events_from_2000000',
        'chain_events_legacy',
      ]);
      await handle.db.insert(trades).values(tradeAt(2_000_001));
      const newest = await selectRows<{ block_number: string | number }>(
        handle.db,
        sql`select block_number from trades where token_address = ${token} order by block_number desc, log_index desc limit 2`,
      );
      expect(newest.map((r) => Number(r.block_number))).toEqual([2_000_001, 1_234_567]);
    });
  });
});
