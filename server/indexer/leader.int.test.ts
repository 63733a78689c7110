import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChain, type TestChain } from '../../test/chain';
import { spawnIndexerProcess } from '../../test/indexer-process';
import { type ReplicatedPostgres, replicationTools, startReplicatedPostgres } from '../../test/replication';
import { readIndexedThroughBlock } from '../db/checkpoint';
import { type DatabaseHandle, openDatabase } from '../db/client';

/**
 * `npm run indexer` through restarts of its PostgreSQL primary: the lock's session ends with the
 * server, the term ends, and the process waits to lead again instead of exiting.
 */
const tools = replicationTools();
if ('missing' in tools)
  console.warn(
    `leader.int.test.ts skipped: ${tools.missing} (set TEST_PG_BIN to the server's bin directory)`,
  );

describe.skipIf('missing' in tools)('the indexer process through database restarts', () => {
  let pg: ReplicatedPostgres;
  let chain: TestChain;
  let reader: DatabaseHandle;

  beforeAll(async () => {
    [pg, chain] = await Promise.all([startReplicatedPostgres(), startTestChain()]);
    reader = await openDatabase({ kind: 'postgres', url: pg.primaryUrl }, { max: 1 });
  }, 120_000);
  afterAll(async () => {
    await reader?.close();
    await chain?.stop();
    await pg?.stop();
  });

  it('leads again after each restart of the primary and keeps the index up with the chain', async () => {
    let output = '';
    const child = spawnIndexerProcess({ env: { DATABASE_URL: pg.primaryUrl } }, chain, {
      INDEXER_POLL_MS: '100',
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const indexedUpToHead = async (timeout: number) => {
      const head = Number(await chain.client.getBlockNumber());
      await expect
        .poll(() => readIndexedThroughBlock(reader.db).catch(() => null), { timeout, interval: 100 })
        .toBeGreaterThanOrEqual(head);
    };
    try {
      await indexedUpToHead(60_000);
      for (let round = 1; round <= 2; round++) {
        await pg.stopPrimary();
        await chain.client.test.mine({ blocks: 3 });
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await pg.startPrimary();
        await indexedUpToHead(20_000);
        expect(output.split('acquired the indexer leader lock').length - 1, output).toBe(round + 1);
        expect(child.exitCode, output).toBeNull();
      }
      expect(output).toContain('lost the indexer leader lock connection; stepping down');
    } finally {
      child.kill('SIGKILL');
    }
  }, 180_000);
});
