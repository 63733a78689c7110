import type { ChildProcess } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { TestChain } from '../../../test/chain';
import { simulatedChainForTests } from '../../../test/chain-hooks';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../../test/database';
import { dumpIndexAndLogs, indexToHead } from '../../../test/indexer/harness';
import { outputShows, spawnIndexerProcess } from '../../../test/indexer-process';
import { createRandom } from '../../chain/simulator/random';
import { type DatabaseHandle, selectRows } from '../../db/client';
import { REBUILD_SCHEMA } from './schema';

const [backend] = await availableBackends();
let chain: TestChain;

simulatedChainForTests({ seed: 46, launches: 16, actions: 260 }, (started) => {
  chain = started.chain;
});

/**
 * `npm run indexer -- rebuild` as a real process: the stored logs replayed up to 40 blocks below
 * the live checkpoint, then two blocks per RPC range to the head, so a kill lands inside it.
 */
function spawnRebuild(database: TestDatabase): ChildProcess {
  return spawnIndexerProcess(
    database,
    chain,
    { INDEXER_MAX_RANGE: '2', FINALITY_DEPTH: '40', INDEXER_POLL_MS: '50' },
    { stderr: 'pipe' },
    ['rebuild'],
  );
}

/** The rebuild's own checkpoint while its schema exists (undefined: none, or swapped in already). */
async function rebuildCheckpoint(handle: DatabaseHandle): Promise<number | null | undefined> {
  const [schema] = await selectRows<{ found: boolean }>(
    handle.db,
    sql`select exists (select 1 from pg_namespace where nspname = ${REBUILD_SCHEMA}) as found`,
  );
  if (!schema?.found) return undefined;
  const [row] = await selectRows<{ block: string | number | null }>(
    handle.db,
    sql.raw(`select (select indexed_through_block from "${REBUILD_SCHEMA}".indexer_checkpoint) as block`),
  );
  return row?.block === null || row?.block === undefined ? null : Number(row.block);
}

describe(`rebuild crash safety (${backend})`, () => {
  it('SIGKILL mid-rebuild, again and again: the live index is untouched, the rebuild resumes, and the result equals an index built live', async () => {
    if (!backend) throw new Error('no backend');
    const database = await createTestDatabase(backend);
    const reference = await createTestDatabase(backend);
    const random = createRandom(45);
    try {
      let handle = await database.open();
      await indexToHead(handle.db, chain, { initialRange: 5, chain: { maxRange: 25 } });
      const before = await dumpIndexAndLogs(handle.db);
      const head = Number(await chain.client.getBlockNumber());
      await handle.close();
      const checkpoints: number[] = [];
      for (let kill = 0; kill < 4; kill++) {
        const child = spawnRebuild(database);
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // Start-up time varies with machine load; the clock starts once the rebuild logs.
        await outputShows(child, '"component":"rebuild"');
        await new Promise((resolve) => setTimeout(resolve, random.int(0, 700)));
        child.kill('SIGKILL');
        await exited;
        handle = await database.open();
        const at = await rebuildCheckpoint(handle);
        // Not swapped in yet: the live index is as it was, to the byte.
        if (at !== undefined) expect(await dumpIndexAndLogs(handle.db)).toEqual(before);
        if (typeof at === 'number') checkpoints.push(at);
        await handle.close();
        if (at === undefined) break;
      }
      // The kills interrupted a rebuild in progress, which kept what it had done.
      expect(
        checkpoints.some((c) => c >= chain.deployment.startBlock && c < head),
        `checkpoints ${checkpoints} head ${head}`,
      ).toBe(true);
      for (let i = 1; i < checkpoints.length; i++)
        expect(checkpoints[i]).toBeGreaterThanOrEqual(checkpoints[i - 1] as number);

      const last = spawnRebuild(database);
      let output = '';
      last.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      last.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const code = await new Promise((resolve) => last.once('exit', resolve));
      expect(code, output.slice(-3_000)).toBe(0);
      expect(output).toContain('resuming the rebuild');
      expect(output).toContain('swapped in the rebuilt index');

      handle = await database.open();
      const referenceHandle = await reference.open();
      try {
        expect(await rebuildCheckpoint(handle)).toBeUndefined();
        await indexToHead(referenceHandle.db, chain);
        expect(await dumpIndexAndLogs(handle.db)).toEqual(await dumpIndexAndLogs(referenceHandle.db));
      } finally {
        await handle.close();
        await referenceHandle.close();
      }
    } finally {
      await database.drop();
      await reference.drop();
    }
  }, 240_000);
});
