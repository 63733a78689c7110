import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { startAppServer } from '../../test/app-server';
import type { TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends, createTestDatabase } from '../../test/database';
import { chainConfigFor, dumpIndexAndLogs, indexToHead, silentLogger } from '../../test/indexer/harness';
import { spawnIndexerProcess } from '../../test/indexer-process';
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
}

describe.each(backends)('an index built by an older projection version (%s)', (backend) => {
  it('is rebuilt from its event store at start: the rows the old version lacked are back, every table as a fresh index', async () => {
    const database = await createTestDatabase(backend);
    const handle = await database.open();
    try {
      // A database the indexer has not begun is not an outdated one.
      expect(await readProjectionState(handle.db)).toEqual({ version: null, storeFrom: null });
      expect(await startUpgrade(handle)).toBeUndefined();

      await indexToHead(handle.db, chain);
      const fresh = await dumpIndexAndLogs(handle.db);
      expect(await readProjectionState(handle.db)).toEqual({
        version: PROJECTION_VERSION,
        storeFrom: chain.deployment.startBlock,
      });
      // The current version is left alone.
      expect(await startUpgrade(handle)).toBeUndefined();

      await asOlderReleaseLeftIt(handle.db);
      expect(await dumpIndexAndLogs(handle.db)).not.toEqual(fresh);
      const report = await startUpgrade(handle);
      expect(report?.replayed.events).toBeGreaterThan(0);
      expect(await dumpIndexAndLogs(handle.db)).toEqual(fresh);
      expect((await readProjectionState(handle.db)).version).toBe(PROJECTION_VERSION);
      expect(await startUpgrade(handle)).toBeUndefined();
    } finally {
      await handle.close();
      await database.drop();
    }
  }, 180_000);

  it('is rebuilt from the RPC when its event store does not reach back to the start block', async () => {
    const database = await createTestDatabase(backend);
    const handle = await database.open();
    try {
      await indexToHead(handle.db, chain);
      const fresh = await dumpIndexAndLogs(handle.db);
      await asOlderReleaseLeftIt(handle.db);
      // An index that began before the event store did: its first chunks are missing.
      await handle.db.execute(
        sql`delete from raw_log_chunks where from_block = (select min(from_block) from raw_log_chunks)`,
      );
      const report = await startUpgrade(handle);
      expect(report?.replayed.events).toBe(0);
      expect(report?.caughtUp.events).toBeGreaterThan(0);
      expect(await dumpIndexAndLogs(handle.db)).toEqual(fresh);
      expect((await readProjectionState(handle.db)).version).toBe(PROJECTION_VERSION);
    } finally {
      await handle.close();
      await database.drop();
    }
  }, 180_000);

  it('`npm run indexer` rebuilds it when it starts (beside the live indexer on PostgreSQL, before it on PGlite)', async () => {
    const database = await createTestDatabase(backend);
    let handle = await database.open();
    try {
      await indexToHead(handle.db, chain);
      const fresh = await dumpIndexAndLogs(handle.db);
      await asOlderReleaseLeftIt(handle.db);
      // PGlite's directory is one process's at a time: the indexer's while it runs.
      await handle.close();
      const child = spawnIndexerProcess(database, chain, { INDEXER_POLL_MS: '50' });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      let output = '';
      const swapped = await new Promise<boolean>((resolve) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('swapped in the rebuilt index')) resolve(true);
        });
        child.once('exit', () => resolve(false));
      });
      expect(swapped, output).toBe(true);
      expect(output).toContain(
        `older than this code's ${PROJECTION_VERSION}: rebuilding it beside the live one from its event store`,
      );
      child.kill('SIGTERM');
      await exited;
      handle = await database.open();
      expect(await dumpIndexAndLogs(handle.db)).toEqual(fresh);
      expect((await readProjectionState(handle.db)).version).toBe(PROJECTION_VERSION);
    } finally {
      await handle.close().catch(() => {});
      await database.drop();
    }
  }, 180_000);

  it('the server with its embedded indexer rebuilds it; on PGlite before it answers', async () => {
    const database = await createTestDatabase(backend);
    let handle = await database.open();
    try {
      await indexToHead(handle.db, chain);
      const fresh = await dumpIndexAndLogs(handle.db);
      await asOlderReleaseLeftIt(handle.db);
      if (backend === 'pglite') await handle.close();
      const server = await startAppServer({
        ...database.env,
        RPC_URL: chain.anvil.rpcUrl,
        CHAIN_ID: '31337',
        FACTORY_ADDRESS: chain.deployment.contracts.factory,
        START_BLOCK: String(chain.deployment.startBlock),
        INDEXER_MODE: 'embedded',
        LOG_LEVEL: 'info',
      });
      try {
        if (backend === 'pglite') {
          // It answered: the rebuild ran before it did.
          expect(server.output()).toContain('swapped in the rebuilt index');
        } else {
          // Beside the live index: it answers at once, the swap comes when the rebuild catches up.
          for (
            let i = 0;
            i < 200 && (await readProjectionState(handle.db)).version !== PROJECTION_VERSION;
            i++
          )
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await server.stop();
      }
      if (backend === 'pglite') handle = await database.open();
      expect(await dumpIndexAndLogs(handle.db)).toEqual(fresh);
      expect((await readProjectionState(handle.db)).version).toBe(PROJECTION_VERSION);
    } finally {
      await handle.close().catch(() => {});
      await database.drop();
    }
  }, 180_000);
});
