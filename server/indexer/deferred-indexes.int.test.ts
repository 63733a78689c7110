import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends } from '../../test/database';
import { chainConfigFor, dumpProjections, indexToHead, withTwoDatabases } from '../../test/indexer/harness';
import { type Database, selectRows } from '../db/client';
import { backfillDeferredIndexes, deferIndexes, deferredIndexNames } from '../db/deferred-indexes';
import { createIndexer, type IndexerLogger } from './indexer';
import { createRpcClient } from './rpc/client';

const backends = await availableBackends();
let chain: TestChain;

simulatedChainForTests({ seed: 53, launches: 12, actions: 160 }, (started) => {
  chain = started.chain;
});

/** The indexes of the tables whose indexes a backfill defers (traders, balance history). */
async function tableIndexes(db: Database): Promise<Record<string, string>> {
  const rows = await selectRows<{ indexname: string; indexdef: string }>(
    db,
    sql`select indexname, indexdef from pg_indexes where tablename in ('traders', 'balance_history') order by indexname`,
  );
  return Object.fromEntries(rows.map((row) => [row.indexname, row.indexdef]));
}

function recordingLogger(lines: string[]): IndexerLogger {
  const log = (_: Record<string, unknown>, message: string) => lines.push(message);
  return { info: log, warn: log, error: log };
}

describe.each(backends)('indexes deferred during a backfill (%s)', (backend) => {
  it('drops the sort indexes for a backfill from scratch, builds them at the head as the migration defined them, and projects the same rows', async () => {
    await withTwoDatabases(backend, async (reference, deferred) => {
      const migrated = await tableIndexes(reference.db);
      expect(Object.keys(migrated)).toEqual(expect.arrayContaining([...backfillDeferredIndexes]));
      await indexToHead(reference.db, chain, { chain: { deferIndexesBlocks: 0 } });

      const lines: string[] = [];
      const config = chainConfigFor(chain, { deferIndexesBlocks: 1 });
      const indexer = createIndexer({
        db: deferred.db,
        rpc: createRpcClient({ url: config.rpcUrl }),
        chain: config,
        logger: recordingLogger(lines),
      });
      // The first step indexes the whole backlog without the sort indexes.
      const first = await indexer.step();
      expect(first).toMatchObject({ kind: 'advanced', caughtUp: true });
      expect(await deferredIndexNames(deferred.db)).toEqual([...backfillDeferredIndexes].sort());
      const during = await tableIndexes(deferred.db);
      for (const name of backfillDeferredIndexes) expect(during[name]).toBeUndefined();
      const [{ n } = { n: 0 }] = await selectRows<{ n: number }>(
        deferred.db,
        sql`select count(*)::int as n from traders`,
      );
      expect(n).toBeGreaterThan(100);

      // At the head, the next step builds them before it answers.
      expect(await indexer.step()).toMatchObject({ kind: 'idle', reason: 'at-head' });
      expect(await deferredIndexNames(deferred.db)).toEqual([]);
      expect(await tableIndexes(deferred.db)).toEqual(migrated);
      expect(lines.some((line) => /dropped, built once the index is within 1 blocks/.test(line))).toBe(true);
      expect(lines.filter((line) => /^built \w+_idx in/.test(line))).toHaveLength(
        backfillDeferredIndexes.length,
      );
      expect(await dumpProjections(deferred.db)).toEqual(await dumpProjections(reference.db));
    });
  }, 120_000);

  it('an indexer that finds indexes deferred by one that stopped builds them once it is near the head', async () => {
    await withTwoDatabases(backend, async (first, _) => {
      const migrated = await tableIndexes(first.db);
      await indexToHead(first.db, chain, { chain: { deferIndexesBlocks: 0 } });
      // As a crash after the drop leaves it: the definitions recorded, the indexes gone.
      expect(await deferIndexes(first.db, backfillDeferredIndexes)).toEqual(
        [...backfillDeferredIndexes].sort(),
      );
      expect(await deferIndexes(first.db, backfillDeferredIndexes)).toEqual([]);
      expect(Object.keys(await tableIndexes(first.db))).toHaveLength(
        Object.keys(migrated).length - backfillDeferredIndexes.length,
      );
      await indexToHead(first.db, chain);
      expect(await deferredIndexNames(first.db)).toEqual([]);
      expect(await tableIndexes(first.db)).toEqual(migrated);
    });
  }, 120_000);

  it('a backfill shorter than the threshold keeps every index', async () => {
    await withTwoDatabases(backend, async (db, _) => {
      const migrated = await tableIndexes(db.db);
      await indexToHead(db.db, chain, { chain: { deferIndexesBlocks: 100_000 } });
      expect(await tableIndexes(db.db)).toEqual(migrated);
      expect(await deferredIndexNames(db.db)).toEqual([]);
    });
  }, 120_000);
});
