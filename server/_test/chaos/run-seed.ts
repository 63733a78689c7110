import type { ChildProcess } from 'node:child_process';
import { type Address, encodeFunctionData, type Hex } from 'viem';
import { bondingCurveAbi, launchFactoryAbi } from '../../chain/abis';
import { createRandom } from '../../chain/simulator/random';
import { createSimulator } from '../../chain/simulator/simulator';
import { type AppServer, startAppServer } from '../app-server';
import { DEPLOYER, GENESIS, startTestChain, type TestChain } from '../chain';
import { type Backend, createTestDatabase, type TestDatabase } from '../database';
import { spawnIndexerProcess } from '../indexer-process';
import { readChainView } from '../oracle/chain-view';
import { compareWithOracle, type Difference } from '../oracle/compare';
import { buildOracle } from '../oracle/model';
import { type FaultProxy, type FaultRates, startFaultProxy } from '../rpc-fault-proxy';
import { waitForIndexedHead } from '../stack';

/**
 * One seeded chaos scenario, in the spirit of Ponder's simulation tests: a fresh chain with
 * launchpad activity (launches, curve buys and sells, transfers, graduations, DEX swaps), reorgs
 * of random depth with replacement transactions, SIGKILLs of the indexer process at random
 * moments and RPC faults through the loopback fault proxy. When the scenario ends the index
 * settles (the production server with its embedded indexer, straight to the node) and every read
 * answer is compared with the oracle computed from the canonical chain.
 *
 * The seed decides the scenario (sizes, every action, reorg depths and replacements, when kills
 * and reorgs happen, fault rates); where a kill lands inside the indexer's work is wall-clock
 * timing, so a seed replays the same chain but not always the same interleaving.
 */
export interface ChaosOptions {
  seed: number;
  backend: Backend;
  /** Page sizes every list is walked at. */
  limits?: number[];
  log?: (line: string) => void;
}

export interface ChaosResult {
  seed: number;
  backend: Backend;
  /** Launches the simulator made, and those still on the canonical chain after the reorgs. */
  launches: number;
  canonicalLaunches: number;
  actions: number;
  /** Simulator actions that reverted because a reorg removed what they traded. */
  reverted: number;
  reorgs: number[];
  kills: number;
  faults: Omit<FaultProxy['counts'], 'forwarded'>;
  head: number;
  answers: number;
  requests: number;
  differences: Difference[];
  seconds: number;
}

const ETHER = 10n ** 18n;

export async function runChaosSeed(options: ChaosOptions): Promise<ChaosResult> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const random = createRandom(options.seed * 7_919 + 17);
  const launches = random.int(5, 10);
  const steps = random.int(80, 160);
  const rates: FaultRates = {
    rateLimit: random.next() * 0.05,
    serverError: random.next() * 0.05,
    // A hung request costs the client's whole timeout (15 s): rare, and in a fifth of the seeds.
    hang: random.chance(0.2) ? 0.002 : 0,
    reset: random.next() * 0.03,
    staleHead: random.next() * 0.1,
  };
  const indexerEnv = {
    INDEXER_MAX_RANGE: String(random.pick([1, 2, 5, 20, 50_000])),
    INDEXER_POLL_MS: '50',
  };

  let chain: TestChain | undefined;
  let database: TestDatabase | undefined;
  let proxy: FaultProxy | undefined;
  let indexer: ChildProcess | undefined;
  let server: AppServer | undefined;
  const result: ChaosResult = {
    seed: options.seed,
    backend: options.backend,
    launches: 0,
    canonicalLaunches: 0,
    actions: 0,
    reverted: 0,
    reorgs: [],
    kills: 0,
    faults: { rateLimit: 0, serverError: 0, hang: 0, reset: 0, staleHead: 0, rangeRefused: 0 },
    head: 0,
    answers: 0,
    requests: 0,
    differences: [],
    seconds: 0,
  };
  const stopIndexer = async () => {
    const child = indexer;
    indexer = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  try {
    chain = await startTestChain({ genesisTimestamp: GENESIS });
    const live = chain;
    database = await createTestDatabase(options.backend);
    proxy = await startFaultProxy(live.anvil.rpcUrl, rates, options.seed);
    /** Starts `npm run indexer` through the fault proxy; resolves once it runs (tsx start-up varies). */
    const startIndexer = async () => {
      const child = spawnIndexerProcess(
        database as TestDatabase,
        live,
        { ...indexerEnv, RPC_URL: (proxy as FaultProxy).url, LOG_LEVEL: 'info' },
        { stderr: 'ignore' },
      );
      indexer = child;
      await new Promise<void>((resolve) => {
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          if (output.length < 10_000) output += chunk.toString();
          if (output.includes('indexer starting')) resolve();
        });
        child.once('exit', () => resolve());
      });
    };
    const simulator = createSimulator({
      client: live.client,
      deployment: live.deployment,
      seed: options.seed,
      advanceTime: true,
      startTime: GENESIS + 3_600,
      creators: 4,
      traders: 12,
    });
    const deployBlock = live.deployment.startBlock;
    /** Reorgs stay above this block: the actors' funding (anvil_setBalance) is state, not a transaction, and a reorg below it would take it away. */
    let floor = deployBlock;

    /** Replaces the last `depth` blocks with new ones carrying different transactions. */
    const reorg = async () => {
      const head = Number(await live.client.getBlockNumber());
      const room = head - floor;
      if (room < 1) return;
      const depth = random.int(1, Math.min(64, room));
      const replacements: [Record<string, Hex | Address>, number][] = [];
      for (let i = random.int(1, 3); i > 0; i--) {
        const open = simulator.tokens.filter((t) => !t.graduated);
        const value =
          `0x${(random.bigint(ETHER / 100n, ETHER) + BigInt(result.reorgs.length)).toString(16)}` as Hex;
        if (open.length > 0 && random.chance(0.7)) {
          const token = random.pick(open).token;
          const curve = (await live.client
            .readContract({
              address: live.deployment.contracts.factory,
              abi: launchFactoryAbi,
              functionName: 'curveOf',
              args: [token],
            })
            .catch(() => undefined)) as Address | undefined;
          if (!curve) continue;
          replacements.push([
            {
              from: DEPLOYER,
              to: curve,
              data: encodeFunctionData({ abi: bondingCurveAbi, functionName: 'buy', args: [0n, 2n ** 40n] }),
              value,
              gas: '0x200000',
            },
            random.int(0, depth - 1),
          ]);
        } else {
          const n = `${options.seed}-${result.reorgs.length}-${i}`;
          replacements.push([
            {
              from: DEPLOYER,
              to: live.deployment.contracts.factory,
              data: encodeFunctionData({
                abi: launchFactoryAbi,
                functionName: 'launch',
                args: [
                  `Reorg ${n}`,
                  `RG${result.reorgs.length}${i}`,
                  10n ** 27n,
                  `0x${n.replace(/-/g, '').padStart(64, '0')}`,
                ],
              }),
              value,
              gas: '0x1000000',
            },
            random.int(0, depth - 1),
          ]);
        }
      }
      await live.client.request({
        method: 'anvil_reorg' as 'eth_chainId',
        params: [depth, replacements] as never,
      });
      result.reorgs.push(depth);
      log(`  reorg of depth ${depth} with ${replacements.length} replacement transactions`);
    };

    const kill = async () => {
      await stopIndexer();
      result.kills++;
      // Sometimes the chain moves on (or reorgs) while the indexer is down.
      for (let i = random.int(0, 3); i > 0; i--) await step();
      if (random.chance(0.3)) await reorg();
      await startIndexer();
    };

    const step = async () => {
      result.actions++;
      try {
        await simulator.step(launches);
      } catch {
        result.reverted++; // traded a token, pool or approval a reorg took away
      }
    };

    await step(); // the first launch; funds the actors
    await live.client.test.mine({ blocks: 1 });
    floor = Number(await live.client.getBlockNumber());
    await startIndexer();
    // At least one reorg and one kill per seed, at seeded positions; more at random.
    const reorgAt = random.int(steps / 4, steps - 1);
    const killAt = random.int(1, steps - 1);
    for (let i = 0; i < steps; i++) {
      const roll = random.next();
      if (i === reorgAt || roll < 0.015) await reorg();
      if (i === killAt || roll > 0.98) {
        // A kill lands while the indexer works: after it had a moment to pick the last blocks up.
        await new Promise((resolve) => setTimeout(resolve, random.int(0, 300)));
        await kill();
      }
      await step();
    }
    result.launches = simulator.tokens.length;
    // The last kill: the indexer works on through the faults for a moment, then dies mid-stride.
    await new Promise((resolve) => setTimeout(resolve, random.int(200, 2_000)));
    await stopIndexer();
    result.kills++;
    const { forwarded: _, ...faults } = proxy.counts;
    result.faults = faults;
    await proxy.close();
    proxy = undefined;

    // Settle: the production server with its embedded indexer, straight to the node.
    log('  settling');
    server = await startAppServer({
      ...database.env,
      RPC_URL: live.anvil.rpcUrl,
      CHAIN_ID: '31337',
      FACTORY_ADDRESS: live.deployment.contracts.factory,
      START_BLOCK: String(deployBlock),
      INDEXER_MODE: 'embedded',
      INDEXER_POLL_MS: '100',
    });
    const head = await waitForIndexedHead(server, live, 120_000).catch((error: Error) => {
      throw new Error(`seed ${options.seed}: the index did not settle: ${error.message}`);
    });
    result.head = head;
    log(`  comparing at block ${head}`);
    const oracle = buildOracle({
      view: await readChainView(live.client, live.deployment.contracts, deployBlock),
    });
    result.canonicalLaunches = oracle.tokenAddresses.length;
    const comparison = await compareWithOracle(server.baseUrl, oracle, { limits: options.limits });
    result.answers = comparison.answers;
    result.requests = comparison.requests;
    result.differences = comparison.differences;
    return result;
  } finally {
    await stopIndexer();
    await server?.stop();
    await proxy?.close();
    await database?.drop();
    await chain?.stop();
    result.seconds = (Date.now() - started) / 1000;
  }
}
