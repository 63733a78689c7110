import type { ChildProcess } from 'node:child_process';
import { type Address, encodeFunctionData, type Hex } from 'viem';
import { bondingCurveAbi, launchFactoryAbi } from '../../server/chain/abis';
import { createRandom } from '../../server/chain/simulator/random';
import { createSimulator } from '../../server/chain/simulator/simulator';
import { type AppServer, startAppServer } from '../app-server';
import { DEPLOYER, GENESIS, startTestChain, type TestChain } from '../chain';
import { type Backend, createTestDatabase, type TestDatabase } from '../database';
import { spawnIndexerProcess } from '../indexer-process';
import { readChainView } from '../oracle/chain-view';
import { compareWithOracle, type Difference } from '../oracle/compare';
import { buildOracle } from '../oracle/model';
import { type FaultProxy, type FaultRates, startFaultProxy } from '../rpc-fault-proxy';
import { waitForIndexedHead } from '../stack';
import {
  compareDrafts,
  type DatabaseFaultKind,
  type DatabaseFaults,
  DB_FAULT_HUNG_MS,
  type LoadStats,
  startChaosLoad,
  startDatabaseFaults,
} from './db-faults';
import {
  compareConsumerWithOracle,
  type StreamConsumer,
  startStreamConsumer,
  streamPosition,
} from './stream-consumer';
import {
  type ChaosWebhooks,
  chaosWebhookEnv,
  chaosWebhookQuietMs,
  compareReceiverWithOracle,
  startChaosWebhooks,
} from './webhook-consumer';

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
 *
 * A stream consumer (stream-consumer.ts) holds `GET /api/v1/stream` through the seed: on
 * PostgreSQL from a web process started beside the indexer, which is restarted once at a seeded
 * step, while the consumer also drops its own connection now and then and resumes with its last
 * id; then from the settle server. What it applied is compared with the oracle too. (One PGlite
 * directory takes one process, the indexer's, so on PGlite it follows the settle server only.)
 * A webhook receiver (webhook-consumer.ts), down at times and failing at random, is a target from
 * the first block on; what it holds at the end is compared with the oracle the same way.
 */
export interface ChaosOptions {
  seed: number;
  backend: Backend;
  /** Page sizes every list is walked at. */
  limits?: number[];
  /** The stream consumer (default on); off, a seed runs as before it existed. */
  stream?: boolean;
  /** The webhook receiver (default on). */
  webhooks?: boolean;
  /**
   * Database faults (db-faults.ts): a primary and a standby behind loopback proxies, frozen,
   * restarted, slowed, cut off and failed over while a reader and an uploader load the web
   * process. PostgreSQL only, with its server binaries.
   */
  dbFaults?: boolean;
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
  /** Insider moves the simulator made, by name (insiders.ts), and the labels the oracle gave. */
  insiders: Record<string, number>;
  labels: Record<string, number>;
  faults: Omit<FaultProxy['counts'], 'forwarded'>;
  head: number;
  answers: number;
  requests: number;
  differences: Difference[];
  /** The stream consumer's connections and what they carried. */
  stream: {
    connections: number;
    disconnects: number;
    dropped: number;
    webRestarts: number;
    reorgs: number;
    lowestReorg: number | null;
    resets: number;
    refetches: number;
    events: number;
  };
  webhooks: ChaosWebhooks['stats'] | null;
  /** The database faults and what the loaded web process answered meanwhile (with `dbFaults`). */
  database: { faults: Record<DatabaseFaultKind, number>; load: LoadStats } | null;
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
    // Every first start defers the traders' sort indexes, and a killed backfill resumes without them.
    INDEXER_DEFER_INDEXES_BLOCKS: '2',
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
    insiders: {},
    labels: {},
    faults: { rateLimit: 0, serverError: 0, hang: 0, reset: 0, staleHead: 0, rangeRefused: 0 },
    head: 0,
    answers: 0,
    requests: 0,
    differences: [],
    stream: {
      connections: 0,
      disconnects: 0,
      dropped: 0,
      webRestarts: 0,
      reorgs: 0,
      lowestReorg: null,
      resets: 0,
      refetches: 0,
      events: 0,
    },
    webhooks: null,
    database: null,
    seconds: 0,
  };
  // The consumer's own choices draw from a stream of their own: the scenario of a seed stays
  // what it was without a consumer.
  const consumerRandom = createRandom(options.seed * 104_729 + 3);
  let consumer: StreamConsumer | undefined;
  let web: AppServer | undefined;
  let hooks: ChaosWebhooks | undefined;
  let dbFaults: DatabaseFaults | undefined;
  let load: ReturnType<typeof startChaosLoad> | undefined;
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
    if (options.dbFaults) {
      if (options.backend !== 'postgres') throw new Error('database faults need PostgreSQL');
      // A random stream of their own: the seed's scenario stays what it is without them.
      dbFaults = await startDatabaseFaults(createRandom(options.seed * 31_337 + 11), steps, log);
      database = dbFaults.database;
    } else database = await createTestDatabase(options.backend);
    proxy = await startFaultProxy(live.anvil.rpcUrl, rates, options.seed);
    if (options.webhooks !== false)
      hooks = await startChaosWebhooks(database, createRandom(options.seed * 6_131 + 5));
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
    const appEnv = {
      ...database.env,
      ...(hooks ? chaosWebhookEnv : {}),
      RPC_URL: live.anvil.rpcUrl,
      CHAIN_ID: '31337',
      FACTORY_ADDRESS: live.deployment.contracts.factory,
      START_BLOCK: String(live.deployment.startBlock),
      STREAM_POLL_MS: '100',
      // A small queue in some seeds: large advances overflow it, and resumes get `reset`.
      STREAM_MAX_QUEUED: String(consumerRandom.pick([64, 1_000])),
      // The load is one loopback client: its per-client bounds would measure the gate, not the faults.
      ...(dbFaults
        ? {
            RATE_LIMIT_READS_PER_MINUTE: '0',
            RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
            DATABASE_MS_PER_SECOND_PER_CLIENT: '0',
            DATABASE_SLOTS_PER_CLIENT: '8',
          }
        : {}),
    };
    /** The web process beside the indexer, its stream followed by the consumer (PostgreSQL). */
    // It holds nothing yet: everything from the deployment on, as of before the first change.
    if (options.stream !== false) consumer = startStreamConsumer(`${live.deployment.startBlock - 1}-0`);
    const startWeb = async () => {
      if (options.backend !== 'postgres' || (options.stream === false && !dbFaults)) return;
      web = await startAppServer({ ...appEnv, INDEXER_MODE: 'off' });
      consumer?.attach(web.baseUrl);
    };
    const stopWeb = async () => {
      consumer?.attach(undefined);
      const stopping = web;
      web = undefined;
      await stopping?.stop();
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
    await startWeb();
    if (dbFaults) load = startChaosLoad(() => web?.baseUrl);
    // At least one reorg and one kill per seed, at seeded positions; more at random.
    const reorgAt = random.int(steps / 4, steps - 1);
    const killAt = random.int(1, steps - 1);
    const webRestartAt = consumerRandom.int(Math.floor(steps / 4), steps - 1);
    for (let i = 0; i < steps; i++) {
      await hooks?.step();
      dbFaults?.step(i);
      if (web && i === webRestartAt) {
        await stopWeb();
        result.stream.webRestarts++;
        await startWeb();
      } else if (consumerRandom.chance(0.04)) consumer?.disconnect(consumerRandom.int(0, 1_500));
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
    result.insiders = { ...simulator.insiderMoves };
    // The last kill: the indexer works on through the faults for a moment, then dies mid-stride.
    await new Promise((resolve) => setTimeout(resolve, random.int(200, 2_000)));
    await stopIndexer();
    result.kills++;
    const loaded = await load?.stop();
    if (web) result.stream.webRestarts++;
    await stopWeb();
    await dbFaults?.settle();
    const { forwarded: _, ...faults } = proxy.counts;
    result.faults = faults;
    await proxy.close();
    proxy = undefined;

    // Settle: the production server with its embedded indexer, straight to the node.
    log('  settling');
    server = await startAppServer({ ...appEnv, INDEXER_MODE: 'embedded', INDEXER_POLL_MS: '100' });
    consumer?.attach(server.baseUrl);
    const head = await waitForIndexedHead(server, live, 120_000).catch((error: Error) => {
      throw new Error(`seed ${options.seed}: the index did not settle: ${error.message}`);
    });
    result.head = head;
    // Its last id must be where a new connection to the settled index starts (block and seq): an
    // id as high from before the settle (an old fork's blocks at the same height) is not enough.
    if (consumer) {
      await consumer.reach(await streamPosition(server.baseUrl, head, 30_000), 60_000);
      await consumer.stop();
    }
    await hooks?.settle(chaosWebhookQuietMs, 120_000);
    log(`  comparing at block ${head}`);
    const view = await readChainView(live.client, live.deployment.contracts, deployBlock);
    const oracle = buildOracle({ view });
    result.canonicalLaunches = oracle.tokenAddresses.length;
    for (const token of oracle.tokenAddresses)
      for (const item of oracle.tokenTraders(token, 'volume'))
        for (const label of item.labels as string[]) result.labels[label] = (result.labels[label] ?? 0) + 1;
    const comparison = await compareWithOracle(server.baseUrl, oracle, { limits: options.limits });
    result.answers = comparison.answers;
    result.requests = comparison.requests;
    result.differences = [
      ...(consumer
        ? compareConsumerWithOracle(consumer.applied, oracle, view).map((difference) => ({
            ...difference,
            message: `${difference.message}; its stream:\n    ${consumer?.trace.join('\n    ')}`,
          }))
        : []),
      ...(hooks ? compareReceiverWithOracle(hooks, oracle, view) : []),
      ...(load && dbFaults ? await compareDrafts(database, load.drafts) : []),
      ...(load && load.slow.length > 0
        ? [
            {
              path: 'load',
              message: `${load.slow.length} requests unanswered within ${DB_FAULT_HUNG_MS} ms: ${load.slow.slice(0, 5).join('; ')}`,
            },
          ]
        : []),
      ...(loaded && (loaded.statuses['500'] ?? 0) > 0
        ? [{ path: 'load', message: `${loaded.statuses['500']} answers 500 under database faults` }]
        : []),
      ...comparison.differences,
    ];
    if (dbFaults && loaded) result.database = { faults: dbFaults.counts, load: loaded };
    return result;
  } finally {
    if (consumer) {
      await consumer.stop();
      Object.assign(result.stream, consumer.stats, {
        reorgs: consumer.applied.counts.reorgs,
        lowestReorg: consumer.applied.lowestReorg ?? null,
        resets: consumer.applied.counts.resets,
        events: consumer.applied.counts.events,
      });
    }
    if (hooks) result.webhooks = hooks.stats;
    await hooks?.stop();
    await stopIndexer();
    await web?.stop();
    await server?.stop();
    await proxy?.close();
    await load?.stop();
    await database?.drop();
    await dbFaults?.stop();
    await chain?.stop();
    result.seconds = (Date.now() - started) / 1000;
  }
}
