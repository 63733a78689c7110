import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import { dumpProjections, indexToHead } from '../../test/indexer/harness';
import { outputShows, spawnIndexerProcess } from '../../test/indexer-process';
import { createRandom } from '../chain/simulator/random';
import { readCheckpoint } from '../db/checkpoint';
import { backfillDeferredIndexes, deferredIndexNames } from '../db/deferred-indexes';

const [backend] = await availableBackends();
let chain: TestChain;

simulatedChainForTests(
  { seed: 31, launches: 25, actions: 400 },
  (started) => {
    chain = started.chain;
  },
  180_000,
);

function spawnIndexer(database: TestDatabase): ChildProcess {
  // Tiny ranges: hundreds of transactions, so a kill lands inside a batch, not between runs.
  return spawnIndexerProcess(
    database,
    chain,
    { INDEXER_MAX_RANGE: '2', INDEXER_POLL_MS: '50', INDEXER_DEFER_INDEXES_BLOCKS: '1' },
    { stderr: 'ignore' },
  );
}

describe(`indexer crash safety (${backend})`, () => {
  it('SIGKILL mid-backfill, five times, then a clean finish: same state as an uninterrupted index', async () => {
    if (!backend) throw new Error('no backend');
    const database = await createTestDatabase(backend);
    const reference = await createTestDatabase(backend);
    const random = createRandom(2026);
    const head = Number(await chain.client.getBlockNumber());
    const checkpoints: number[] = [];
    try {
      // A kill that found nothing committed doubles the next one's wait: on a loaded machine the
      // first commit can take longer than the whole of the shortest waits.
      let stalls = 0;
      for (let kill = 0; kill < 5; kill++) {
        const child = spawnIndexer(database);
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // Start-up time varies with machine load; the clock starts once the indexer runs.
        await outputShows(child, 'indexer starting');
        await new Promise((resolve) => setTimeout(resolve, random.int(200, 1_200) * 2 ** stalls));
        child.kill('SIGKILL');
        await exited;
        const handle = await database.open();
        const checkpoint = (await readCheckpoint(handle.db))?.indexedThroughBlock ?? 0;
        await handle.close();
        if (checkpoint === (checkpoints.at(-1) ?? 0)) stalls++;
        checkpoints.push(checkpoint);
      }
      // The kills really interrupted a backfill in progress: progress was made and kept, not finished.
      expect(
        checkpoints.some((c) => c > 0 && c < head),
        `checkpoints ${checkpoints} head ${head}`,
      ).toBe(true);
      for (let i = 1; i < checkpoints.length; i++)
        expect(checkpoints[i]).toBeGreaterThanOrEqual(checkpoints[i - 1] as number);

      const handle = await database.open();
      const referenceHandle = await reference.open();
      try {
        // The killed indexers began a backfill with the traders' sort indexes deferred (they are
        // built only at the head): the one that finishes builds them.
        if ((checkpoints.at(-1) ?? 0) < head)
          expect(await deferredIndexNames(handle.db)).toEqual([...backfillDeferredIndexes].sort());
        await indexToHead(handle.db, chain);
        await indexToHead(referenceHandle.db, chain);
        expect(await deferredIndexNames(handle.db)).toEqual([]);
        expect(await dumpProjections(handle.db)).toEqual(await dumpProjections(referenceHandle.db));
      } finally {
        await handle.close();
        await referenceHandle.close();
      }
    } finally {
      await database.drop();
      await reference.drop();
    }
    // Six processes each open the database (PGlite boots in each) and two indexes run to the
    // head: 38-61 s on PGlite on this 2-core machine, over the suite's 60 s when CI is busy.
  }, 150_000);
});
