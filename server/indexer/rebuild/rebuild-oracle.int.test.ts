import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, startAppServer } from '../../../test/app-server';
import { chainEnv, fundedAddress, startSimulatedChain, type TestChain } from '../../../test/chain';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../../test/database';
import { chainConfigFor, silentLogger } from '../../../test/indexer/harness';
import { readChainView } from '../../../test/oracle/chain-view';
import { compareWithOracle, describeDifference } from '../../../test/oracle/compare';
import { buildOracle } from '../../../test/oracle/model';
import { waitForIndexedHead } from '../../../test/stack';
import type { Ledger } from '../../chain/simulator/ledger';
import { createRpcClient } from '../rpc/client';
import { rebuildIndex } from './rebuild';

const backends = await availableBackends();

/**
 * The production server over an index that is rebuilt and swapped in under it. On PostgreSQL
 * the server's own indexer keeps indexing through the rebuild and follows the swap, and a
 * reader polling all along never sees `indexed_through_block` go back; PGlite admits one process
 * per directory, so there the server stops for the rebuild.
 */
describe.each(backends)('a rebuilt index under the running server (%s)', (backend) => {
  let chain: TestChain;
  let ledger: Ledger;
  let database: TestDatabase;
  let server: AppServer;
  const env = () => ({
    ...database.env,
    ...chainEnv(chain),
    INDEXER_MODE: 'embedded',
    INDEXER_POLL_MS: '100',
    // Every read from the database: a cached answer would hide which tables served it.
    READ_CACHE_MB: '0',
  });

  beforeAll(async () => {
    ({ chain, ledger } = await startSimulatedChain({ seed: 78, launches: 16, actions: 200 }));
    database = await createTestDatabase(backend);
    server = await startAppServer(env());
    await waitForIndexedHead(server, chain, 60_000);
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    await chain?.stop();
  });

  it('answers every read as the oracle after the swap; indexed_through_block never went back', async () => {
    const trader = await fundedAddress(chain, 7);
    const [token] = ledger.actions.filter((a) => a.kind === 'launch').map((a) => a.token as Address);
    if (!token) throw new Error('no launch in the fixture');
    const seen: number[] = [];
    let polling = true;
    // A client reading all along, with the prepared statements of the server's reads.
    const poller = (async () => {
      while (polling) {
        const response = await fetch(`${server.baseUrl}/api/v1/tokens/${token}`).catch(() => undefined);
        const body = (await response?.json().catch(() => undefined)) as
          | { indexed_through_block?: number }
          | undefined;
        if (response?.status === 200 && typeof body?.indexed_through_block === 'number')
          seen.push(body.indexed_through_block);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    if (backend === 'pglite') await server.stop();
    const config = chainConfigFor(chain);
    const report = await rebuildIndex({
      database: database.config,
      chain: config,
      rpc: createRpcClient({ url: config.rpcUrl }),
      logger: silentLogger,
      async onPhase(phase) {
        // The chain moves while the rebuild catches up: on PostgreSQL the live index moves too.
        if (phase === 'catch-up')
          await chain.actions.buy({ trader, token, value: 10n ** 16n }).catch(() => {});
      },
    });
    expect(report.swap.status).toBe('swapped');
    if (backend === 'pglite') server = await startAppServer(env());
    await chain.actions.buy({ trader, token, value: 2n * 10n ** 16n }).catch(() => {});
    await waitForIndexedHead(server, chain, 60_000);
    polling = false;
    await poller;
    // PGlite: the server was down during the rebuild; PostgreSQL: read all through it.
    expect(seen.length).toBeGreaterThan(backend === 'postgres' ? 10 : 1);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1] as number);

    const view = await readChainView(chain.client, chain.deployment.contracts, ledger.startBlock);
    const comparison = await compareWithOracle(server.baseUrl, buildOracle({ view }));
    expect(comparison.differences.slice(0, 5).map(describeDifference).join('\n\n')).toBe('');
    expect(comparison.answers).toBeGreaterThan(1_000);
  }, 600_000);
});
