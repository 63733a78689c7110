import type { Ledger } from '../server/chain/simulator/ledger';
import { type AppServer, startAppServer } from './app-server';
import { type SimulatedFixture, startSimulatedChain, type TestChain } from './chain';
import { type Backend, createTestDatabase, type TestDatabase } from './database';
import { type ChainView, readChainView } from './oracle/chain-view';
import { type FaultProxy, startFaultProxy } from './rpc-fault-proxy';

export interface IndexedStack {
  chain: TestChain;
  database: TestDatabase;
  server: AppServer;
  ledger: Ledger;
  /** The loopback proxy between the server and anvil, when asked for. */
  proxy: FaultProxy | undefined;
  /** Resolves once the server's indexer has reached the chain head. */
  waitForIndex(): Promise<number>;
  /**
   * Stops the server (and its indexer) and starts it again on the same database and chain;
   * `whileDown` runs in between (chain activity the restarted indexer then reads in one range).
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** The chain as the oracle reads it: every log of the deployment from its start block on. */
  readChainView(): Promise<ChainView>;
  stop(): Promise<void>;
}

/**
 * The real stack for API and browser tests: anvil with a simulator fixture, a fresh database and
 * the production server whose embedded indexer follows the chain, so new chain activity during a test
 * reaches the API the way it does in production.
 */
export async function startIndexedStack(
  backend: Backend,
  fixture: SimulatedFixture,
  extraEnv: Record<string, string> | ((chain: TestChain) => Record<string, string>) = {},
  options: { proxy?: boolean } = {},
): Promise<IndexedStack> {
  const { chain, ledger } = await startSimulatedChain(fixture);
  const database = await createTestDatabase(backend);
  const proxy = options.proxy
    ? await startFaultProxy(chain.anvil.rpcUrl, {
        rateLimit: 0,
        serverError: 0,
        hang: 0,
        reset: 0,
        staleHead: 0,
      })
    : undefined;
  const env = {
    ...database.env,
    RPC_URL: proxy?.url ?? chain.anvil.rpcUrl,
    CHAIN_ID: '31337',
    FACTORY_ADDRESS: chain.deployment.contracts.factory,
    START_BLOCK: String(chain.deployment.startBlock),
    INDEXER_MODE: 'embedded',
    INDEXER_POLL_MS: '100',
    // Segments of balance history start often on a test chain's few dozen holders (test/indexer/harness.ts).
    HISTORY_SEGMENT_MIN_EVENTS: '4',
    ...(typeof extraEnv === 'function' ? extraEnv(chain) : extraEnv),
  };
  const stack: IndexedStack = {
    chain,
    database,
    server: await startAppServer(env),
    ledger,
    proxy,
    waitForIndex: () => waitForIndexedHead(stack.server, chain, 60_000),
    restart: async (whileDown) => {
      await stack.server.stop();
      await whileDown?.();
      stack.server = await startAppServer(env);
    },
    readChainView: () => readChainView(chain.client, chain.deployment.contracts, ledger.startBlock),
    stop: async () => {
      await stack.server.stop();
      await proxy?.close();
      await database.drop();
      await chain.stop();
    },
  };
  await stack.waitForIndex();
  return stack;
}

/**
 * Waits until the server's index (its /api/health) reaches the chain's current head; returns the
 * indexed block. Fails with the server's recent output when it does not within `timeoutMs`.
 */
export async function waitForIndexedHead(
  server: AppServer,
  chain: TestChain,
  timeoutMs: number,
): Promise<number> {
  const head = Number(await chain.client.getBlockNumber());
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = (await (await fetch(`${server.baseUrl}/api/health`)).json()) as {
      indexer: { indexed_through_block: number | null };
    };
    const indexed = health.indexer.indexed_through_block ?? 0;
    if (indexed >= head) return indexed;
    if (Date.now() > deadline)
      throw new Error(`index stuck at ${indexed}, head ${head}:\n${server.output().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
