import { sql } from 'drizzle-orm';
import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { reorgWithBuys, type TestChain } from '../../../test/chain';
import { simulatedChainForTests } from '../../../test/chain-hooks';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../../test/database';
import {
  chainConfigFor,
  dumpIndexAndLogs,
  indexToHead,
  projectionContextFor,
  silentLogger,
} from '../../../test/indexer/harness';
import type { ChainConfig } from '../../config';
import { readCheckpoint } from '../../db/checkpoint';
import { type Database, type DatabaseHandle, selectRows } from '../../db/client';
import { backfillDeferredIndexes, deferIndexes, deferredIndexNames } from '../../db/deferred-indexes';
import { excludeToken } from '../../tokens/moderation';
import { webhookEventTypes } from '../../webhooks/outbox';
import { addWebhookTarget } from '../../webhooks/targets';
import { IndexSwappedError } from '../errors';
import { createIndexer, type IndexerLogger } from '../indexer';
import { createBalanceBook } from '../project/balance-book';
import { foldRange } from '../project/fold';
import { writePlan } from '../project/write';
import { createRpcClient } from '../rpc/client';
import { logChunkOf } from '../store/stored-logs';
import { fixedAddressBook } from '../sync/address-book';
import { fetchRange } from '../sync/fetch-range';
import { type RebuildOptions, type RebuildReport, rebuildIndex } from './rebuild';

const backends = await availableBackends();
let chain: TestChain;

simulatedChainForTests({ seed: 45, launches: 14, actions: 240 }, (started) => {
  chain = started.chain;
});

/** What a reference index of the same chain holds: built from scratch over the RPC, with the same off-chain rows. */
async function referenceDump(database: TestDatabase, excluded: string | null) {
  const reference = await createTestDatabase(database.backend);
  const handle = await reference.open();
  try {
    await addWebhookTarget(handle.db, {
      url: 'https://hooks.example/',
      tokenAddress: null,
      events: [...webhookEventTypes],
    });
    if (excluded) await excludeToken(handle.db, excluded, 'test');
    await indexToHead(handle.db, chain);
    return { dump: await dumpIndexAndLogs(handle.db), outbox: await queuedEvents(handle.db) };
  } finally {
    await handle.close();
    await reference.drop();
  }
}

/** A silent logger whose progress lines (the indexer's, one per committed range) call `onProgress`. */
function silentLoggerThat(onProgress: () => void): IndexerLogger {
  return {
    ...silentLogger,
    info: (fields) => {
      if (typeof fields.indexedThroughBlock === 'number') onProgress();
    },
  };
}

/** The events queued for webhook targets (retractions apart), in queue order. */
async function queuedEvents(db: Database): Promise<string[]> {
  const rows = await selectRows<{ event_id: string }>(
    db,
    sql`select event_id from webhook_outbox where kind <> 'retraction' order by seq`,
  );
  return rows.map((row) => row.event_id);
}

/**
 * Runs a rebuild of `database`. PGlite's directory is the rebuild's alone meanwhile: `open.handle`
 * is closed for it and opened again after, whatever happened.
 */
async function rebuild(
  database: TestDatabase,
  open: { handle: DatabaseHandle },
  options: Partial<RebuildOptions> = {},
): Promise<RebuildReport> {
  if (database.backend === 'pglite') await open.handle.close();
  const config: ChainConfig = chainConfigFor(chain);
  try {
    return await rebuildIndex({
      database: database.config,
      chain: config,
      rpc: createRpcClient({ url: config.rpcUrl }),
      logger: silentLogger,
      ...options,
    });
  } finally {
    if (database.backend === 'pglite') open.handle = await database.open();
  }
}

async function buyOnSomeCurve(db: Database, value: bigint) {
  const trader = '0x00000000000000000000000000000000000b0b01' as Address;
  await chain.client.test.setBalance({ address: trader, value: 10n ** 24n });
  const [token] = await selectRows<{ address: Address }>(
    db,
    sql`select address from tokens where lifecycle = 'curve' order by created_block limit 1`,
  );
  if (!token) throw new Error('no open curve');
  await chain.actions.buy({ trader, token: token.address, value });
}

describe.each(backends)('rebuild from the stored logs (%s)', (backend) => {
  it('equals an index built live, every table and stored log; off-chain rows and the outbox carry over; the live indexer follows the swap', async () => {
    const database = await createTestDatabase(backend);
    const open = { handle: await database.open() };
    try {
      await addWebhookTarget(open.handle.db, {
        url: 'https://hooks.example/',
        tokenAddress: null,
        events: [...webhookEventTypes],
      });
      // Small ranges: the stored chunks are many and small; the replay merges them.
      const live = createIndexer({
        db: open.handle.db,
        rpc: createRpcClient({ url: chain.anvil.rpcUrl }),
        chain: chainConfigFor(chain, { maxRange: 30, finalityDepth: 20 }),
        logger: silentLogger,
        initialRange: 7,
      });
      await live.syncToHead();
      const [late] = await selectRows<{ address: string }>(
        open.handle.db,
        sql`select address from tokens order by created_block desc limit 1`,
      );
      const excluded = late?.address ?? '';
      await excludeToken(open.handle.db, excluded, 'test');
      const queued = await queuedEvents(open.handle.db);
      const [{ n: changes } = { n: 0 }] = await selectRows<{ n: number }>(
        open.handle.db,
        sql`select max(seq)::int as n from index_changes`,
      );

      const report = await rebuild(database, open, {
        chain: chainConfigFor(chain, { finalityDepth: 20 }),
      });
      const { handle } = open;
      const head = Number(await chain.client.getBlockNumber());
      // Replayed from the stored logs up to 20 blocks below the live checkpoint, the rest from the RPC.
      expect(report.replayed).toMatchObject({ from: chain.deployment.startBlock, to: head - 20 });
      const [events] = await selectRows<{ n: number }>(
        handle.db,
        sql`select count(*)::int as n from chain_events`,
      );
      expect(report.replayed.events).toBeGreaterThan(300);
      expect(report.replayed.events + report.caughtUp.events).toBe(events?.n);
      // The funding check's blocks come from the store too: the replay read none from the RPC.
      expect(live.status.fundingBlocks).toBeGreaterThan(0);
      expect(report.replayed.fundingBlocks).toBe(0);
      expect(report.swap).toMatchObject({ from: head, to: head, ancestor: head });
      expect(await queuedEvents(handle.db)).toEqual(queued);
      // Nothing new: the stream's log has no entry from the swap.
      expect(
        (await selectRows<{ n: number }>(handle.db, sql`select max(seq)::int as n from index_changes`))[0]?.n,
      ).toBe(changes);
      const schemas = await selectRows<{ name: string }>(
        handle.db,
        sql`select nspname as name from pg_namespace where nspname like 'launchdex_%'`,
      );
      expect(schemas).toEqual([]);

      // The chain moves on; an indexer that filled its caches from the old index follows the new one.
      await buyOnSomeCurve(handle.db, 10n ** 17n);
      const follower =
        backend === 'postgres'
          ? live
          : createIndexer({
              db: handle.db,
              rpc: createRpcClient({ url: chain.anvil.rpcUrl }),
              chain: chainConfigFor(chain),
              logger: silentLogger,
            });
      await follower.syncToHead();
      const reference = await referenceDump(database, excluded);
      expect(await dumpIndexAndLogs(handle.db)).toEqual(reference.dump);
      expect(await queuedEvents(handle.db)).toEqual(reference.outbox);
    } finally {
      await open.handle.close();
      await database.drop();
    }
  });

  it('equals a fresh index after reorgs during the rebuild: the stream and the outbox take back what the live index had of the replaced blocks', async () => {
    const database = await createTestDatabase(backend);
    const open = { handle: await database.open() };
    try {
      await addWebhookTarget(open.handle.db, {
        url: 'https://hooks.example/',
        tokenAddress: null,
        events: [...webhookEventTypes],
      });
      await indexToHead(open.handle.db, chain);
      const curves = (
        await selectRows<{ curve_address: Address }>(
          open.handle.db,
          sql`select curve_address from tokens where lifecycle = 'curve' order by created_block`,
        )
      ).map((row) => row.curve_address);
      // Every queued event counts as tried: a reorg must retract what a target may have received.
      await open.handle.db.execute(sql`update webhook_outbox set attempted_at = now()`);
      const [excludedRow] = await selectRows<{ address: string }>(
        open.handle.db,
        sql`select address from tokens limit 1`,
      );
      const excluded = excludedRow?.address ?? '';
      await excludeToken(open.handle.db, excluded, 'test');
      const [{ n: changes } = { n: 0 }] = await selectRows<{ n: number }>(
        open.handle.db,
        sql`select max(seq)::int as n from index_changes`,
      );
      let seq = 1_000;
      let swaps = 0;
      const pglite = backend === 'pglite';
      const report = await rebuild(database, open, {
        async onPhase(phase) {
          // Replaced before the rebuild reads them, and the live index still holds the old blocks.
          if (phase === 'catch-up') seq = await reorgWithBuys(chain.client, 3, curves, seq, 45n);
          if (phase === 'swap' && swaps++ === 0) {
            // The live index moves on past the rebuilt one (and repairs the first reorg)…
            await chain.client.test.mine({ blocks: 2 });
            if (!pglite) {
              const liveHandle = await database.open();
              await indexToHead(liveHandle.db, chain).finally(() => liveHandle.close());
            }
            // …then blocks both indexes hold are replaced again: the rebuild rolls back too.
            seq = await reorgWithBuys(chain.client, 4, curves, seq, 46n);
          }
        },
      });
      const { handle } = open;
      expect(report.swap.status).toBe('swapped');
      if (!pglite) expect(report.caughtUp.reorgs).toBeGreaterThanOrEqual(1);
      // The live index held replaced blocks: the swap logged a rollback to the common ancestor.
      const logged = await selectRows<{ kind: string; from_block: number; to_block: number }>(
        handle.db,
        sql`select kind, from_block::int, to_block::int from index_changes where seq > ${changes} order by seq`,
      );
      expect(logged.some((entry) => entry.kind === 'rollback')).toBe(true);
      expect(report.swap.ancestor).toBeLessThan(report.swap.from ?? 0);
      const retracted = await selectRows<{ n: number }>(
        handle.db,
        sql`select count(*)::int as n from webhook_outbox where kind = 'retraction'`,
      );
      expect(retracted[0]?.n).toBeGreaterThan(0);
      await indexToHead(handle.db, chain);
      const reference = await referenceDump(database, excluded);
      expect(await dumpIndexAndLogs(handle.db)).toEqual(reference.dump);
      // Every event of the final chain is queued once after what was taken back.
      const queued = await queuedEvents(handle.db);
      expect(new Set(queued.slice(-reference.outbox.length))).toEqual(new Set(reference.outbox));
    } finally {
      await open.handle.close();
      await database.drop();
    }
  });

  it('a rebuild stopped in the middle of its replay resumes at its checkpoint, reading the rest from the store', async () => {
    const database = await createTestDatabase(backend);
    const open = { handle: await database.open() };
    try {
      await indexToHead(open.handle.db, chain, { initialRange: 5, chain: { maxRange: 25 } });
      const before = await dumpIndexAndLogs(open.handle.db);
      let written = 0;
      const stopping = silentLoggerThat(() => {
        // The replay's third committed range: a crash between two of its writes.
        if (++written === 3) throw new Error('stopped mid-replay');
      });
      const small = { indexer: { eventsPerWrite: 60, progressIntervalMs: 0 } };
      await expect(rebuild(database, open, { ...small, logger: stopping })).rejects.toThrow(
        'stopped mid-replay',
      );
      expect(await dumpIndexAndLogs(open.handle.db)).toEqual(before);
      const report = await rebuild(database, open, small);
      expect(report.replayed.from).toBeGreaterThan(chain.deployment.startBlock);
      expect(report.replayed.events).toBeGreaterThan(0);
      const reference = await referenceDump(database, null);
      expect(await dumpIndexAndLogs(open.handle.db)).toEqual(reference.dump);
    } finally {
      await open.handle.close();
      await database.drop();
    }
  });

  it('builds the indexes a live backfill still had deferred, and every index of the live tables, under their names', async () => {
    const database = await createTestDatabase(backend);
    const open = { handle: await database.open() };
    const indexNames = async (db: Database) =>
      (
        await selectRows<{ name: string }>(
          db,
          sql`select indexname as name from pg_indexes where schemaname = current_schema() order by indexname`,
        )
      ).map((row) => row.name);
    try {
      await indexToHead(open.handle.db, chain);
      const all = await indexNames(open.handle.db);
      expect(all).toEqual(expect.arrayContaining([...backfillDeferredIndexes]));
      await deferIndexes(open.handle.db, backfillDeferredIndexes);
      await rebuild(database, open);
      expect(await deferredIndexNames(open.handle.db)).toEqual([]);
      expect(await indexNames(open.handle.db)).toEqual(all);
    } finally {
      await open.handle.close();
      await database.drop();
    }
  });

  it('a write folded from an index that was swapped out writes nothing', async () => {
    const database = await createTestDatabase(backend);
    const handle = await database.open();
    try {
      const rpc = createRpcClient({ url: chain.anvil.rpcUrl });
      const head = Number(await chain.client.getBlockNumber());
      const range = await fetchRange(rpc, chain.deployment.startBlock, head, {
        factory: chain.deployment.contracts.factory.toLowerCase(),
        book: fixedAddressBook(new Set()),
        tokens: new Set(),
        pools: new Map(),
      });
      const plan = foldRange(range, projectionContextFor(chain), new Map(), createBalanceBook(Infinity).view);
      plan.rawLogs = logChunkOf(range);
      await expect(
        writePlan(handle.db, projectionContextFor(chain), plan, { generation: 'another index' }),
      ).rejects.toThrow(IndexSwappedError);
      expect(await readCheckpoint(handle.db)).toBeUndefined();
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
