import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, freePort, startAppServer } from '../../test/app-server';
import { startSimulatedChain, type TestChain } from '../../test/chain';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import { spawnIndexerProcess } from '../../test/indexer-process';

const hasPostgres = (await availableBackends()).includes('postgres');

interface IndexerProcess {
  child: ChildProcess;
  output(): string;
  metricsPort: number;
}

/**
 * A real deployment in miniature: two stateless web instances (`npm run serve`, indexer off) and two
 * `npm run indexer` processes on one PostgreSQL database; the leader lock decides who indexes.
 * PGlite admits one process per data directory, so this shape exists only on PostgreSQL.
 */
// vitest.config.ts does not collect this file where PostgreSQL is absent; the guard keeps a direct run honest.
if (hasPostgres)
  describe('several web instances and indexers on one PostgreSQL (postgres)', () => {
    let chain: TestChain;
    let database: TestDatabase;
    const webs: AppServer[] = [];
    const indexers: IndexerProcess[] = [];

    const chainEnv = () => ({
      RPC_URL: chain.anvil.rpcUrl,
      CHAIN_ID: '31337',
      FACTORY_ADDRESS: chain.deployment.contracts.factory,
      START_BLOCK: String(chain.deployment.startBlock),
    });

    async function spawnIndexer(): Promise<IndexerProcess> {
      const metricsPort = await freePort();
      let output = '';
      const child = spawnIndexerProcess(database, chain, {
        INDEXER_POLL_MS: '100',
        METRICS_PORT: String(metricsPort),
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      return { child, output: () => output, metricsPort };
    }

    const indexedOn = async (web: AppServer) =>
      (
        (await (await fetch(`${web.baseUrl}/api/health`)).json()) as {
          indexer: { indexed_through_block: number | null };
        }
      ).indexer.indexed_through_block ?? 0;

    async function waitUntilIndexed(block: number) {
      await expect
        .poll(async () => Math.min(...(await Promise.all(webs.map(indexedOn)))), {
          timeout: 60_000,
          interval: 200,
        })
        .toBeGreaterThanOrEqual(block);
    }

    beforeAll(async () => {
      ({ chain } = await startSimulatedChain({ seed: 91, launches: 6, actions: 60 }));
      database = await createTestDatabase('postgres');
      // The first web instance migrates the database; the rest find it current.
      for (let i = 0; i < 2; i++)
        webs.push(await startAppServer({ ...database.env, ...chainEnv(), INDEXER_MODE: 'off' }));
      const leader = await spawnIndexer();
      indexers.push(leader);
      // Start the second one only once the first leads, so which one leads is known.
      const deadline = Date.now() + 60_000;
      while (!leader.output().includes('acquired the indexer leader lock')) {
        if (Date.now() > deadline) throw new Error(`the first indexer never led:\n${leader.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      indexers.push(await spawnIndexer());
    }, 240_000);

    afterAll(async () => {
      for (const indexer of indexers) indexer.child.kill('SIGKILL');
      for (const web of webs) await web.stop();
      await database?.drop();
      await chain?.stop();
    });

    it('one indexer leads, the other stands by, and every web instance serves the same index', async () => {
      const [leader, standby] = indexers;
      if (!leader || !standby) throw new Error('indexers not started');
      await expect
        .poll(() => standby.output(), { timeout: 30_000 })
        .toContain('standby: another indexer holds the leader lock');
      expect(standby.output()).not.toContain('acquired the indexer leader lock');
      await waitUntilIndexed(Number(await chain.client.getBlockNumber()));
      const lists = await Promise.all(
        webs.map(async (web) => (await fetch(`${web.baseUrl}/api/v1/tokens?limit=100`)).text()),
      );
      expect(JSON.parse(lists[0] as string).items).toHaveLength(6);
      expect(lists[1]).toBe(lists[0]);
      const leaderMetrics = await (await fetch(`http://127.0.0.1:${leader.metricsPort}/metrics`)).text();
      expect(leaderMetrics).toMatch(/^launchdex_indexer_events_total [1-9]/m);
    });

    it('when the leader dies the standby takes over and the index keeps up with the chain', async () => {
      const [leader, standby] = indexers;
      if (!leader || !standby) throw new Error('indexers not started');
      leader.child.kill('SIGKILL');
      await expect
        .poll(() => standby.output(), { timeout: 30_000 })
        .toContain('acquired the indexer leader lock');
      const creator = `0x${'ab'.repeat(20)}` as const;
      await chain.client.test.setBalance({ address: creator, value: 10n ** 22n });
      const { token } = await chain.actions.launch({
        creator,
        name: 'After Failover',
        symbol: 'AFTER',
        supply: 10n ** 27n,
        metadataHash: `0x${'00'.repeat(32)}`,
      });
      await waitUntilIndexed(Number(await chain.client.getBlockNumber()));
      for (const web of webs) {
        const detail = await fetch(`${web.baseUrl}/api/v1/tokens/${token.toLowerCase()}`);
        expect(detail.status).toBe(200);
        expect(((await detail.json()) as { identity: { name: string } }).identity.name).toBe(
          'After Failover',
        );
      }
    });
  });
