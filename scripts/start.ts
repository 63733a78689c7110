/**
 * `npm start`: the whole product on embedded defaults, or on the configured services.
 *
 * With no RPC_URL it runs the local devnet (anvil from npm, contracts deployed, state kept in
 * $DATA_DIR), fills a fresh chain with two days of seeded activity, keeps a live simulator
 * trading, and serves the web app whose embedded indexer follows the chain. With RPC_URL set it
 * only serves (and, on PGlite, indexes) that chain. scripts/start.mjs builds first when the
 * sources changed, then runs this launcher compiled (dist/start.js).
 * A rerun resumes from $DATA_DIR; `npm start -- --reset` starts from nothing. Ctrl-C stops all.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Devnet, startDevnet } from '../server/chain/devnet';
import { createCreatorStudio, type StudioLaunch } from '../server/chain/simulator/creator-studio';
import { createSimulator } from '../server/chain/simulator/simulator';
import { localBaseUrl } from '../server/config';
import { compiled } from '../server/module-worker';
import { WAD } from '../shared/units';
import { loadConfigOrExit } from './cli';

const root = path.resolve(import.meta.dirname, '..');
/** How often, on the devnet, a creator launches a token with metadata through the API. */
const STUDIO_INTERVAL_MS = 90_000;

/** The first line of a thrown value: viem and RPC errors run to many lines of detail. */
const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0];
const { values } = parseArgs({
  options: { reset: { type: 'boolean', default: false }, rate: { type: 'string', default: '0.5' } },
});

const config = loadConfigOrExit();
if (values.reset) {
  console.log(`▶ --reset: removing ${config.dataDir}`);
  rmSync(config.dataDir, { recursive: true, force: true });
}
let devnet: Devnet | undefined;
let web: ChildProcess | undefined;
const stopping = new AbortController();

async function shutdown(code: number) {
  if (stopping.signal.aborted) return;
  stopping.abort();
  console.log('\n▶ stopping…');
  try {
    if (web?.pid) process.kill(-web.pid, 'SIGTERM');
  } catch {}
  await devnet?.anvil.stop();
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void shutdown(0));

if (config.chainSource === 'devnet') {
  devnet = await startDevnet({
    dataDir: config.dataDir,
    manifestFile: config.deploymentManifestPath,
    port: config.devnetPort,
    genesisTimestamp: Math.floor(Date.now() / 1000) - 2 * 86_400,
    log: console.log,
  }).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    return process.exit(1);
  });
  devnet.anvil.process.on('exit', () => void shutdown(1));
  if (!devnet.resumed) {
    const genesis = Number((await devnet.client.getBlock({ blockNumber: 0n })).timestamp);
    console.log('▶ simulating two days of launchpad history (24 launches)…');
    const history = createSimulator({
      client: devnet.client,
      deployment: devnet.deployment,
      seed: 1,
      advanceTime: true,
      startTime: genesis + 3_600,
    });
    const { summary: s } = await history.runFixture({
      launches: 24,
      actions: 240,
      onProgress: (done, total) => {
        if (done % 60 === 0) console.log(`  ${done}/${total} actions`);
      },
    });
    console.log(
      `  ${s.launches} launches, ${s.curveBuys + s.curveSells} curve trades, ${s.graduations} graduations, ${s.dexSwaps} DEX swaps`,
    );
    // Bring chain time back to the wall clock so live activity happens "now".
    const latest = (await devnet.client.getBlock()).timestamp;
    await devnet.client.test.setNextBlockTimestamp({
      timestamp: BigInt(Math.max(Math.floor(Date.now() / 1000), Number(latest) + 1)),
    });
    await devnet.client.test.mine({ blocks: 1 });
  }
}

// Where this machine reaches the server (health, the creator studio); also PUBLIC_BASE_URL's default.
const url = localBaseUrl(config.host, config.port);
console.log(
  `▶ starting the web server (${config.database.kind === 'pglite' ? `embedded PGlite in ${config.database.dir}` : 'PostgreSQL'})…`,
);
// The compiled server (dist/, `npm run build`) when this launcher is compiled too.
const serve = compiled
  ? [path.join(root, 'dist', 'serve.js')]
  : ['--import', 'tsx', path.join(root, 'scripts', 'serve.ts')];
web = spawn(process.execPath, serve, {
  cwd: root,
  // Its own process group, so stopping it also stops anything it forks.
  stdio: ['ignore', 'inherit', 'inherit'],
  detached: true,
  // Access logs (one JSON line per request) would drown the console here; operators running
  // `npm run serve` get them at the default level.
  env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', NEXT_TELEMETRY_DISABLED: '1' },
});
web.on('exit', (code) => void shutdown(code ?? 1));

type Health = { status: string; indexer: { indexed_through_block: number | null } };
for (let attempt = 0; ; attempt++) {
  const state = await fetch(`${url}/api/health`)
    .then(async (response) => {
      const body = (await response.json()) as Health;
      return { ok: response.ok && body.status === 'ok', indexed: body.indexer.indexed_through_block };
    })
    .catch(() => ({ ok: false, indexed: null }));
  const head = devnet ? Number(await devnet.client.getBlockNumber()) : undefined;
  if (state.ok && (head === undefined || (state.indexed ?? 0) >= head)) break;
  if (attempt > 0 && attempt % 10 === 0)
    console.log(
      `  waiting: server ${state.ok ? 'up' : 'starting'}, indexed ${state.indexed ?? '–'}${head ? ` of ${head}` : ''}`,
    );
  if (attempt > 600) {
    console.error('the server did not become ready within 5 minutes');
    await shutdown(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
}

// Creators launching through the API, as a person does on /launch: tokens with logos, links and
// finalized metadata beside the simulator's bare launches.
const studio = devnet
  ? createCreatorStudio({
      baseUrl: url,
      client: devnet.client,
      deployment: devnet.deployment,
      seed: devnet.deployment.contracts.factory,
      // A resumed devnet continues the catalog instead of repeating its names.
      startAt: await fetch(`${url}/api/v1/tokens?view=linked&limit=100`)
        .then((response) => response.json() as Promise<{ items: unknown[] }>)
        .then((page) => page.items.length)
        .catch(() => 0),
    })
  : undefined;
const studioLaunches: StudioLaunch[] = [];
if (studio && !devnet?.resumed) {
  console.log('▶ creators launching 3 tokens through the API (draft → launch → finalize)…');
  const results = await Promise.allSettled(
    [1n, 2n, 3n].map((whole) => studio.launch({ firstBuy: whole * WAD })),
  );
  for (const result of results) {
    if (result.status === 'fulfilled') {
      studioLaunches.push(result.value);
      console.log(`  ${result.value.symbol} ${result.value.token} finalized`);
    } else {
      console.error(`  a creator launch failed: ${firstLine(result.reason)}`);
    }
  }
}

console.log(
  `\n  Launchdex is up: ${url}\n  API: ${url}/api/v1/tokens · docs: ${url}/docs${devnet ? `\n  devnet RPC: ${devnet.anvil.rpcUrl} (chain 31337), live simulator at ~${values.rate} actions/s` : ''}\n  Ctrl-C to stop.\n`,
);

if (devnet) {
  const rate = Math.max(0.05, Number(values.rate) || 0.5);
  const live = createSimulator({
    client: devnet.client,
    deployment: devnet.deployment,
    seed: Date.now() % 1_000_000,
    advanceTime: false,
  });
  for (const launched of studioLaunches) live.adopt(launched.token, launched.creator);
  let failures = 0;
  let studioBusy = false;
  let lastStudioLaunch = Date.now();
  while (!stopping.signal.aborted) {
    const started = Date.now();
    if (studio && !studioBusy && started - lastStudioLaunch > STUDIO_INTERVAL_MS) {
      // In the background: finalize waits for the index, trading goes on meanwhile.
      studioBusy = true;
      lastStudioLaunch = started;
      studio
        .launch({ firstBuy: WAD })
        .then((launched) => live.adopt(launched.token, launched.creator))
        .catch((error: unknown) => {
          if (!stopping.signal.aborted) console.error(`creator studio: ${firstLine(error)}`);
        })
        .finally(() => {
          studioBusy = false;
        });
    }
    try {
      // A new token now and then, trades on the ones this run launched, as on a real launchpad.
      await live.step(live.tokens.length + 1);
      failures = 0;
    } catch (error) {
      if (stopping.signal.aborted) break;
      if (++failures % 10 === 1) console.error(`simulator: ${firstLine(error)}`);
      // Most often a reorg took some of its transactions away (a token that no longer exists):
      // the market goes on from what the chain holds now.
      await live
        .reconcile()
        .then(({ forgotten }) => {
          if (forgotten > 0)
            console.error(`simulator: ${forgotten} token(s) undone by a reorg, trading the rest`);
        })
        .catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 / rate - (Date.now() - started))));
  }
}
