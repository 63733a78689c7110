import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { freePort, startAppServer } from '../../test/app-server';
import { chainEnv, type TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends, type Backend, createTestDatabase, type TestDatabase } from '../../test/database';
import { chainConfigFor, dumpIndexAndLogs, indexToHead, silentLogger } from '../../test/indexer/harness';
import { outputShows, spawnIndexerProcess } from '../../test/indexer-process';
import { type FaultProxy, startFaultProxy } from '../../test/rpc-fault-proxy';
import type { Database, DatabaseHandle } from '../db/client';
import { PROJECTION_VERSION } from '../db/projection-tables';
import { createRpcClient } from './rpc/client';
import { readProjectionState, rebuildIfOutdated } from './upgrade';

const backends = await availableBackends();
let chain: TestChain;

simulatedChainForTests({ seed: 19, launches: 8, actions: 120 }, (started) => {
  chain = started.chain;
});

/** What the indexer's start does (scripts/indexer.ts, server/startup.ts), on the process's handle. */
function startUpgrade(handle: DatabaseHandle) {
  const config = chainConfigFor(chain);
  return rebuildIfOutdated(handle.db, {
    database: handle.config,
    chain: config,
    rpc: createRpcClient({ url: config.rpcUrl }),
    logger: silentLogger,
    ...(handle.driver === 'pglite' ? { handle } : {}),
  });
}

/** An index as an older release left it: folded by version 0, without the rows it never wrote. */
async function asOlderReleaseLeftIt(db: Database) {
  await db.execute(sql`update indexer_checkpoint set projection_version = 0`);
  await db.execute(sql`delete from trader_totals`);
  await db.execute(sql`update traders set sniper = false, bundler = false`);
  // Version 1 kept no balance history: migration 0020 left its rows as below.
  await db.execute(sql`delete from balance_history`);
  await db.execute(sql`update balances set since_block = 0`);
  await db.execute(sql`update tokens set history_segment = 0, history_countdown = 10000`);
  await db.execute(sql`update indexer_checkpoint set balance_history_from_block = indexed_through_block + 1`);
}

/**
 * A database of `backend` indexed to the head, then left as an older release would have left it;
 * `body` gets it open, with the dump of the fresh index it must come back to. Dropped after.
 */
async function withOutdatedIndex(
  backend: Backend,
  body: (
    database: TestDatabase,
    open: { handle: DatabaseHandle },
    fresh: Record<string, unknown[]>,
  ) => Promise<void>,
) {
  const database = await createTestDatabase(backend);
  const open = { handle: await database.open() };
  try {
    await indexToHead(open.handle.db, chain);
    const fresh = await dumpIndexAndLogs(open.handle.db);
    await asOlderReleaseLeftIt(open.handle.db);
    expect(await dumpIndexAndLogs(open.handle.db)).not.toEqual(fresh);
    await body(database, open, fresh);
    expect(await dumpIndexAndLogs(open.handle.db)).toEqual(fresh);
    expect((await readProjectionState(open.handle.db)).version).toBe(PROJECTION_VERSION);
  } finally {
    await open.handle.close().catch(() => {});
    await database.drop();
  }
}

/** Runs `during` with PGlite's directory closed to this process (a process of its own holds it). */
async function asideOnPglite(
  database: TestDatabase,
  open: { handle: DatabaseHandle },
  during: () => Promise<void>,
) {
  if (database.backend === 'pglite') await open.handle.close();
  try {
    await during();
  } finally {
    if (database.backend === 'pglite') open.handle = await database.open();
  }
}

describe.each(backends)('an index built by an older projection version (%s)', (backend) => {
  it('a database not indexed yet, or indexed by this version, is left alone', async () => {
    const database = await createTestDatabase(backend);
    const handle = await database.open();
    try {
      expect(await readProjectionState(handle.db)).toEqual({ version: null, storeFrom: null });
      expect(await startUpgrade(handle)).toBeUndefined();
      await indexToHead(handle.db, chain);
      expect(await readProjectionState(handle.db)).toEqual({
        version: PROJECTION_VERSION,
        storeFrom: chain.deployment.startBlock,
      });
      expect(await startUpgrade(handle)).toBeUndefined();
    } finally {
      await handle.close();
      await database.drop();
    }
  }, 180_000);

  it('is rebuilt from its event store: the rows the old version lacked are back, every table as a fresh index', async () => {
    await withOutdatedIndex(backend, async (_database, open) => {
      const report = await startUpgrade(open.handle);
      expect(report?.replayed.events).toBeGreaterThan(0);
    });
  }, 180_000);

  it('is rebuilt from the RPC when its event store does not reach back to the start block', async () => {
    await withOutdatedIndex(backend, async (_database, open) => {
      // An index that began before the event store did: its first chunks are missing.
      await open.handle.db.execute(
        sql`delete from raw_log_chunks where from_block = (select min(from_block) from raw_log_chunks)`,
      );
      const report = await startUpgrade(open.handle);
      expect(report?.replayed.events).toBe(0);
      expect(report?.caughtUp.events).toBeGreaterThan(0);
    });
  }, 180_000);

  it('`npm run indexer` rebuilds it when it starts (beside the live indexer on PostgreSQL, before it on PGlite)', async () => {
    await withOutdatedIndex(backend, (database, open) =>
      asideOnPglite(database, open, async () => {
        const child = spawnIndexerProcess(database, chain, { INDEXER_POLL_MS: '50' });
        const exited = new Promise((resolve) => child.once('exit', resolve));
        const { shown: swapped, output } = await outputShows(child, 'swapped in the rebuilt index');
        child.kill('SIGTERM');
        await exited;
        expect(swapped, output).toBe(true);
        expect(output).toContain(
          `older than this code's ${PROJECTION_VERSION}: rebuilding it beside the live one from its event store`,
        );
      }),
    );
  }, 180_000);

  it('the server with its embedded indexer rebuilds it; on PGlite before it answers', async () => {
    await withOutdatedIndex(backend, (database, open) =>
      asideOnPglite(database, open, async () => {
        const server = await startAppServer({
          ...database.env,
          ...chainEnv(chain),
          INDEXER_MODE: 'embedded',
          LOG_LEVEL: 'info',
          // The fresh index's segments of balance history (test/indexer/harness.ts).
          HISTORY_SEGMENT_MIN_EVENTS: '4',
        });
        try {
          if (backend === 'pglite') {
            // It answered: the rebuild ran before it did.
            expect(server.output()).toContain('swapped in the rebuilt index');
          } else {
            // Beside the live index: it answers at once, the swap comes when the rebuild catches up.
            await vi.waitFor(
              async () =>
                expect((await readProjectionState(open.handle.db)).version).toBe(PROJECTION_VERSION),
              { timeout: 20_000, interval: 100 },
            );
          }
        } finally {
          await server.stop();
        }
      }),
    );
  }, 180_000);

  // A node that refuses connections, and one that accepts them and never answers (a partition, a
  // stuck process: only the client's deadline ends the wait).
  it.each(['refuses', 'never answers'] as const)(
    'a start whose RPC %s serves the old index (on PGlite after asking the node once)',
    async (fault) => {
      const database = await createTestDatabase(backend);
      const open = { handle: await database.open() };
      let frozen: FaultProxy | undefined;
      try {
        await indexToHead(open.handle.db, chain);
        await asOlderReleaseLeftIt(open.handle.db);
        const old = await dumpIndexAndLogs(open.handle.db);
        frozen =
          fault === 'never answers'
            ? await startFaultProxy(chain.anvil.rpcUrl, {
                rateLimit: 0,
                serverError: 0,
                hang: 1,
                reset: 0,
                staleHead: 0,
              })
            : undefined;
        await asideOnPglite(database, open, async () => {
          const server = await startAppServer({
            ...database.env,
            ...chainEnv(chain),
            // Refused: nothing listens there.
            RPC_URL: frozen?.url ?? `http://127.0.0.1:${await freePort()}`,
            INDEXER_MODE: 'embedded',
            LOG_LEVEL: 'info',
          });
          try {
            if (backend === 'pglite') {
              // The start waits for the rebuild: it asked the node once rather than waiting out
              // the client's retries (about a minute without answers), a frozen one for 5 s rather
              // than RPC_TIMEOUT_MS (15 s by default).
              expect(server.output()).toContain(
                fault === 'refuses'
                  ? 'RPC failed after 1 attempts'
                  : 'RPC failed after 1 attempts: TimeoutError: no answer within 5000 ms',
              );
              expect(server.output()).toContain(
                'upgrade rebuild failed; following the old index until the next start',
              );
            } else {
              // Beside the live index the rebuild rides out the node's silence with the client's
              // retries (a blip must not defer an upgrade to the next start); the old index serves.
              await vi.waitFor(
                () =>
                  expect(server.output()).toContain('rebuilding it beside the live one from its event store'),
                { timeout: 30_000, interval: 100 },
              );
              expect(server.output()).not.toContain('RPC failed after 1 attempts');
            }
            const response = await fetch(`${server.baseUrl}/api/v1/tokens?limit=100`);
            expect(response.status).toBe(200);
            const { items } = (await response.json()) as { items: unknown[] };
            expect(items).toHaveLength(8);
          } finally {
            await server.stop();
          }
        });
        // Untouched: the old index as it was, still marked for the next start's rebuild.
        expect(await dumpIndexAndLogs(open.handle.db)).toEqual(old);
        expect((await readProjectionState(open.handle.db)).version).toBe(0);
      } finally {
        await frozen?.close();
        await open.handle.close().catch(() => {});
        await database.drop();
      }
    },
    180_000,
  );
});
