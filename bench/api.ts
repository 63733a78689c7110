/**
 * `npm run bench -- [--quick] [--workers N] [--duration S] [--warmup S] [--only a,b] [--write]
 *   [--database-url URL] [--tokens N] [--trades N]`
 * `npm run bench -- --live [--bump-ms 2000,250] [--duration 5] …`
 * `npm run bench -- --hostile [--workers 1,2] [--duration 10] [--warmup 10] [--victims 8] [--victim-rate 15]
 *   [--attackers 16] [--ramp 0] [--rounds 3] [--database-ms 0,250] …`
 *
 * Read API against its floor. Seeds PostgreSQL at scale once (bench/seed-scale.ts; 1M tokens /
 * 20M trades, `--quick` 2M trades; kept between runs in `launchdex_bench` / `launchdex_bench_quick`),
 * starts Launchdex's production server (`npm run serve`, indexer off) and the floor
 * (bench/floor.ts: bare node:http + postgres.js, one prepared statement per route class)
 * on the same database with the same number of workers, checks that both give the same answer
 * for every route class, then drives each class with autocannon on both: req/s at 64 connections,
 * p99 at 16, and each server's CPU per request (its process tree's CPU time from /proc). Prints a
 * markdown table; `--write` puts it into docs/benchmarks.md between the bench:api markers.
 *
 * `--live`: the read model advances while it is measured. A side connection bumps the read-model
 * version every `--bump-ms` (each period in turn), emptying the read cache as an indexed block
 * range does, while every route class is driven with a mix of URLs against Launchdex as shipped
 * (read cache on) and the floor, interleaved; the cache's hit / joined / miss counts of each run
 * come from /api/metrics. `--write`: between the bench:live markers.
 *
 * `--hostile`: Launchdex as shipped (default limits and per-client caps, TRUSTED_PROXY_HOPS=1),
 * once per `--workers` count: paced victims read /api/v1/tokens/newest alone, then while one
 * attacker keeps `--attackers` expensive, always-missing reads in flight; `--rounds` such pairs
 * alternate, and each side's answers are pooled into one p99. `--write`: between the
 * bench:hostile markers. `--database-ms a,b`: each worker count once per value of
 * DATABASE_MS_PER_SECOND_PER_CLIENT, in turn (the shipped default when absent).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { fieldDifferences, firstDifference } from './lib/answer-shape';
import { readCacheCounts } from './lib/cache-metrics';
import { ensureDataset } from './lib/dataset';
import { type RouteClass, routeClasses } from './lib/fixtures';
import { benchHostile } from './lib/hostile-runs';
import { renderLive, runLive } from './lib/live';
import { measure, warm } from './lib/measure';
import { agrees, type RouteResult, renderReport, writeMarkedSection, writeReport } from './lib/report';
import { type BenchServer, outOfReachLimits, startFloor, startLaunchdex } from './lib/servers';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'database-url': { type: 'string' },
    tokens: { type: 'string', default: '1000000' },
    trades: { type: 'string' },
    workers: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    only: { type: 'string' },
    'skip-cached': { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    live: { type: 'boolean', default: false },
    'bump-ms': { type: 'string', default: '2000,250' },
    hostile: { type: 'boolean', default: false },
    victims: { type: 'string', default: '8' },
    'victim-rate': { type: 'string', default: '15' },
    attackers: { type: 'string', default: '16' },
    ramp: { type: 'string', default: '0' },
    rounds: { type: 'string', default: '3' },
    'database-ms': { type: 'string' },
  },
});
if (values.live && values.hostile) throw new Error('--live and --hostile are separate runs');
const mode = values.hostile ? 'hostile' : values.live ? 'live' : 'api';
const tokens = Number(values.tokens);
const trades = Number(values.trades ?? (values.quick ? 2_000_000 : 20_000_000));
const databaseUrl =
  values['database-url'] ??
  `postgres://postgres@127.0.0.1:5432/launchdex_bench${values.quick ? '_quick' : ''}`;
// --live runs six runs per route class (two bump periods): 5 s keeps it near ten minutes.
const duration = Number(values.duration ?? (mode === 'live' ? 5 : 10));
// --hostile measures a server just started: its quiet run must not be its warm-up.
const warmup = Number(values.warmup ?? (mode === 'hostile' ? 10 : 1));
const workerCounts = (values.workers ?? (mode === 'hostile' ? '1,2' : '1'))
  .split(',')
  .map((each) => Math.max(1, Number(each)));
if (mode !== 'hostile' && workerCounts.length !== 1) throw new Error('--workers takes one count here');
const workersAsked = workerCounts[0] ?? 1;
const throughputConnections = 64;
const latencyConnections = 16;
const cursorSecret = 'launchdex-bench-cursor-key';
const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
const metricsToken = 'launchdex-bench-metrics-token';
const docs = path.join(root, 'docs', 'benchmarks.md');

const seed = await ensureDataset(databaseUrl, tokens, trades);
const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const [version] = await db<{ version: string }[]>`select version()`;
const postgresVersion = /^PostgreSQL [\d.]+/.exec(version?.version ?? '')?.[0] ?? 'PostgreSQL';

const baseEnv = {
  DATABASE_URL: databaseUrl,
  INDEXER_MODE: 'off',
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'launchdex-bench-')),
  CURSOR_SECRET: cursorSecret,
  METRICS_TOKEN: metricsToken,
};
const launchdexEnv = {
  ...baseEnv,
  ...outOfReachLimits,
};

const loadBefore = os.loadavg();
const servers: BenchServer[] = [];
const get = async (server: BenchServer, pathAndQuery: string) => {
  const response = await fetch(`${server.baseUrl}${pathAndQuery}`);
  return { status: response.status, body: await response.text() };
};
const jsonFrom =
  (server: BenchServer) =>
  async <T>(pathAndQuery: string): Promise<T> => {
    const { status, body } = await get(server, pathAndQuery);
    if (status !== 200) throw new Error(`${pathAndQuery}: ${status} ${body}`);
    return JSON.parse(body) as T;
  };
const selectRoutes = (routes: RouteClass[]) => {
  const only = values.only?.split(',').map((word) => word.trim().toLowerCase());
  return only
    ? routes.filter(({ label }) => only.some((word) => label.toLowerCase().includes(word)))
    : routes;
};
/** What every report states about its run, read when it is written (the load average after). */
const runContext = () => ({
  command,
  postgresVersion,
  tokens,
  trades,
  duration,
  warmup,
  throughputConnections,
  latencyConnections,
  loadBefore,
  loadAfter: os.loadavg(),
});
/** `identical`, `same fields`, or what differs between two answers (statuses, then fields). */
const compare = (mine: { status: number; body: string }, bare: { status: number; body: string }) => {
  if (mine.status !== 200 || bare.status !== 200) return `status ${mine.status} vs ${bare.status}`;
  const differences = fieldDifferences(JSON.parse(mine.body), JSON.parse(bare.body));
  return differences.length > 0
    ? differences.slice(0, 3).join('; ')
    : mine.body === bare.body
      ? 'identical'
      : 'same fields';
};

try {
  if (mode === 'hostile')
    await benchHostile({
      baseEnv,
      workerCounts,
      databaseMs: values['database-ms']?.split(',').map((value) => value.trim()) ?? [undefined],
      victims: Number(values.victims),
      victimRate: Number(values['victim-rate']),
      attackerConnections: Number(values.attackers),
      ramp: Number(values.ramp),
      rounds: Math.max(1, Number(values.rounds)),
      duration,
      warmup,
      context: runContext,
      servers,
      ...(values.write ? { writeTo: docs } : {}),
    });
  else if (mode === 'live') await benchLive();
  else await benchApi();
} catch (error) {
  // A server that stopped answering: what it printed says why.
  for (const server of servers) {
    const printed = server.output?.().trim();
    if (printed) console.error(`▶ ${server.name} (pid ${server.pid}) printed:\n${printed.slice(-4000)}`);
  }
  throw error;
} finally {
  for (const server of servers.reverse()) await server.stop();
  await db.end();
}

/** The main runs: Launchdex without its read cache against the floor, then as shipped. */
async function benchApi(): Promise<void> {
  // The read path itself: without the cache of serialized answers, every request reads the
  // database, as every floor request does. One URL hammered would otherwise be served from memory.
  const launchdex = await startLaunchdex({ ...launchdexEnv, READ_CACHE_MB: '0' }, workersAsked);
  servers.push(launchdex);
  if (launchdex.workers !== workersAsked)
    console.log(
      `▶ asked for ${workersAsked} workers, Launchdex runs ${launchdex.workers}: the floor runs as many`,
    );
  const floor = await startFloor(databaseUrl, launchdex.workers, cursorSecret);
  servers.push(floor);
  // The shipped configuration (READ_CACHE_MB default): a repeated URL is answered from memory.
  const cached = values['skip-cached'] ? undefined : await startLaunchdex(launchdexEnv, launchdex.workers);
  if (cached) servers.push(cached);
  console.log(
    `▶ Launchdex ${launchdex.baseUrl} (pid ${launchdex.pid}, ${launchdex.workers} worker(s), read cache off); floor ${floor.baseUrl} (pid ${floor.pid})${cached ? `; Launchdex with its read cache ${cached.baseUrl}` : ''}`,
  );

  const selected = selectRoutes(await routeClasses(jsonFrom(launchdex), db, tokens));

  console.log('▶ same answer from both servers? (keys, order and JSON types of every field; then bytes)');
  // An answer differing only in the read cache's copy is flagged too: the cached column must
  // serve what the read path computes.
  const shapes = new Map<string, string>();
  for (const { label, path: pathAndQuery, targets } of selected) {
    const [mine, bare] = [await get(launchdex, pathAndQuery), await get(floor, pathAndQuery)];
    let shape = compare(mine, bare);
    // Every URL a class drives is the floor's answer too.
    for (const target of targets?.slice(1) ?? []) {
      const other = compare(await get(launchdex, target), await get(floor, target));
      if (other !== 'identical' && other !== 'same fields') shape = `${target}: ${other}`;
    }
    if (cached) {
      const fromCache = [await get(cached, pathAndQuery), await get(cached, pathAndQuery)];
      if (fromCache.some((answer) => answer.body !== mine.body))
        shape = `${shape}; the read cache answers other bytes`;
    }
    shapes.set(label, shape);
    const bytes = `${mine.body.length.toLocaleString('en-US')} B`;
    if (shape === 'identical') console.log(`  ✓ ${label.padEnd(28)} identical bytes (${bytes})`);
    else if (shape === 'same fields')
      console.log(
        `  ✓ ${label.padEnd(28)} same fields, other bytes: ${firstDifference(mine.body, bare.body)}`,
      );
    else console.log(`  ✗ ${label.padEnd(28)} ${shape}`);
  }

  // Every route once before any is measured: the first route measured otherwise pays for the
  // whole server's first compilations (its CPU per request came out ~2x its neighbours').
  console.log('▶ warming every route on every server');
  for (const { path: pathAndQuery, targets } of selected)
    for (const server of [launchdex, floor, ...(cached ? [cached] : [])])
      await warm(server, targets ?? pathAndQuery, warmup);

  const results: RouteResult[] = [];
  for (const { label, path, targets } of selected) {
    const pathAndQuery = targets ?? path;
    await warm(launchdex, pathAndQuery, warmup);
    await warm(floor, pathAndQuery, warmup);
    // Interleaved, so a neighbour's burst on this shared box falls on both servers alike.
    const launchdexThroughput = await measure(launchdex, pathAndQuery, throughputConnections, duration);
    const floorThroughput = await measure(floor, pathAndQuery, throughputConnections, duration);
    const launchdexLatency = await measure(launchdex, pathAndQuery, latencyConnections, duration);
    const floorLatency = await measure(floor, pathAndQuery, latencyConnections, duration);
    if (cached) await warm(cached, pathAndQuery, warmup);
    const cachedThroughput = cached
      ? await measure(cached, pathAndQuery, throughputConnections, duration)
      : undefined;
    const cachedLatency = cached
      ? await measure(cached, pathAndQuery, latencyConnections, duration)
      : undefined;
    const result: RouteResult = {
      label,
      shape: shapes.get(label) ?? 'unchecked',
      launchdex: { throughput: launchdexThroughput, latency: launchdexLatency },
      floor: { throughput: floorThroughput, latency: floorLatency },
      ...(cachedThroughput && cachedLatency
        ? { cached: { throughput: cachedThroughput, latency: cachedLatency } }
        : {}),
    };
    results.push(result);
    const ratio = launchdexThroughput.requestsPerSecond / floorThroughput.requestsPerSecond;
    console.log(
      `  ${label.padEnd(28)} ${String(launchdexThroughput.requestsPerSecond).padStart(6)} vs ${String(floorThroughput.requestsPerSecond).padStart(6)} req/s (${ratio.toFixed(2)})  p99 ${launchdexLatency.p99} vs ${floorLatency.p99} ms  CPU ${launchdexThroughput.cpuMsPerRequest.toFixed(2)} vs ${floorThroughput.cpuMsPerRequest.toFixed(2)} ms/req${cachedThroughput ? `  cached ${cachedThroughput.requestsPerSecond} req/s, p99 ${cachedLatency?.p99} ms` : ''}`,
    );
  }

  const table = renderReport(
    {
      ...runContext(),
      seedSeconds: seed.seconds,
      seedDate: seed.date,
      launchdexWorkers: launchdex.workers,
      floorWorkers: floor.workers,
      workersAsked,
    },
    results,
  );
  console.log(`\n${table}\n`);
  if (values.write) {
    writeReport(docs, table);
    console.log('▶ docs/benchmarks.md updated');
  }
}

/** `--live`: Launchdex as shipped and the floor while the read-model version moves. */
async function benchLive(): Promise<void> {
  const bumpPeriods = values['bump-ms'].split(',').map((each) => Number(each));
  if (bumpPeriods.some((period) => !(period > 0)))
    throw new Error('--bump-ms takes periods in ms, e.g. 2000,250');
  // As shipped: the read cache at its default size; limits as in the main runs (one load generator).
  const launchdex = await startLaunchdex(launchdexEnv, workersAsked);
  servers.push(launchdex);
  const floor = await startFloor(databaseUrl, launchdex.workers, cursorSecret);
  servers.push(floor);
  console.log(
    `▶ Launchdex as shipped ${launchdex.baseUrl} (pid ${launchdex.pid}, ${launchdex.workers} worker(s), read cache on); floor ${floor.baseUrl} (pid ${floor.pid}); version bumped every ${bumpPeriods.join(' ms, then ')} ms`,
  );
  const selected = selectRoutes(await routeClasses(jsonFrom(launchdex), db, tokens));

  console.log(
    '▶ same answer from both servers, every URL of every mix? (the second Launchdex answer from its cache)',
  );
  const shapes = new Map<string, string>();
  for (const { label, mix } of selected) {
    const differing: string[] = [];
    let sameBytes = true;
    for (const pathAndQuery of mix) {
      const bare = await get(floor, pathAndQuery);
      const answers = [await get(launchdex, pathAndQuery), await get(launchdex, pathAndQuery)];
      for (const mine of answers) {
        const shape = compare(mine, bare);
        if (shape === 'same fields') sameBytes = false;
        else if (shape !== 'identical') differing.push(`${pathAndQuery}: ${shape}`);
      }
    }
    const shape =
      differing.length > 0
        ? [...new Set(differing)].slice(0, 2).join('; ')
        : sameBytes
          ? 'identical'
          : 'same fields';
    shapes.set(label, shape);
    console.log(`  ${agrees(shape) ? '✓' : '✗'} ${label.padEnd(28)} ${mix.length} URL(s): ${shape}`);
  }
  const counted = await readCacheCounts(launchdex, metricsToken);
  console.log(
    `▶ read cache counter: ${counted ? `launchdex_read_cache_requests_total ${JSON.stringify(counted)}` : 'absent (n/a)'}`,
  );

  const results = await runLive({
    databaseUrl,
    launchdex,
    floor,
    metricsToken,
    routes: selected,
    shapes,
    bumpPeriods,
    duration,
    warmup,
    throughputConnections,
    latencyConnections,
  });
  const table = renderLive({ ...runContext(), workers: launchdex.workers, bumpPeriods }, results);
  console.log(`\n${table}\n`);
  if (values.write) {
    writeMarkedSection(docs, 'live', 'Read API while the index advances (`npm run bench -- --live`)', table);
    console.log('▶ docs/benchmarks.md updated (bench:live)');
  }
}
