/**
 * `npm run bench -- [--quick] [--workers N] [--duration S] [--warmup S] [--only a,b] [--write]
 *   [--database-url URL] [--tokens N] [--trades N]`
 *
 * Read API against its floor. Seeds PostgreSQL at scale once (scripts/seed-scale.ts; 1M tokens /
 * 20M trades, `--quick` 2M trades; kept between runs in `launchdex_bench` / `launchdex_bench_quick`),
 * starts Launchdex's production server (`npm run serve`, indexer off) and the floor
 * (scripts/bench-floor.ts: bare node:http + postgres.js, one prepared statement per route class)
 * on the same database with the same number of workers, checks that both give the same answer
 * for every route class, then drives each class with autocannon on both: req/s at 64 connections,
 * p99 at 16, and each server's CPU per request (its process tree's CPU time from /proc). Prints a
 * markdown table; `--write` puts it into docs/benchmarks.md between the bench:api markers.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { fieldDifferences, firstDifference } from './bench/answer-shape';
import { ensureDataset } from './bench/dataset';
import { measure, warm } from './bench/measure';
import { type RouteResult, renderReport, writeReport } from './bench/report';
import { type BenchServer, startFloor, startLaunchdex } from './bench/servers';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'database-url': { type: 'string' },
    tokens: { type: 'string', default: '1000000' },
    trades: { type: 'string' },
    workers: { type: 'string', default: '1' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '1' },
    only: { type: 'string' },
    'skip-cached': { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const tokens = Number(values.tokens);
const trades = Number(values.trades ?? (values.quick ? 2_000_000 : 20_000_000));
const databaseUrl =
  values['database-url'] ??
  `postgres://postgres@127.0.0.1:5432/launchdex_bench${values.quick ? '_quick' : ''}`;
const duration = Number(values.duration);
const warmup = Number(values.warmup);
const workersAsked = Math.max(1, Number(values.workers));
const throughputConnections = 64;
const latencyConnections = 16;
const cursorSecret = 'launchdex-bench-cursor-key';
const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();

const seed = await ensureDataset(databaseUrl, tokens, trades);
const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const [version] = await db<{ version: string }[]>`select version()`;
await db.end();
const postgresVersion = /^PostgreSQL [\d.]+/.exec(version?.version ?? '')?.[0] ?? 'PostgreSQL';

const loadBefore = os.loadavg();
const servers: BenchServer[] = [];
try {
  const launchdexEnv = {
    DATABASE_URL: databaseUrl,
    INDEXER_MODE: 'off',
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'launchdex-bench-')),
    CURSOR_SECRET: cursorSecret,
    // autocannon is one client: the gate still runs on every request (its cost is measured), but
    // with limits no single load generator reaches.
    RATE_LIMIT_READS_PER_MINUTE: '1000000000',
    RATE_LIMIT_READS_BURST: '1000000000',
    WORK_PER_CLIENT: '100000',
    QUEUED_PER_CLIENT: '100000',
    CONNECTIONS_PER_CLIENT: '100000',
  };
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

  const get = async (server: BenchServer, pathAndQuery: string) => {
    const response = await fetch(`${server.baseUrl}${pathAndQuery}`);
    return { status: response.status, body: await response.text() };
  };
  const json = async <T>(pathAndQuery: string): Promise<T> => {
    const { status, body } = await get(launchdex, pathAndQuery);
    if (status !== 200) throw new Error(`${pathAndQuery}: ${status} ${body}`);
    return JSON.parse(body) as T;
  };

  // Fixtures from the seed (scripts/bench/seed-sql.ts): token 1 is the busiest; token 440 is
  // graduated, trades last on the pool and has bound metadata, so its detail has every group.
  const tokenAddress = (index: number) => `0x${index.toString(16).padStart(40, '0')}`;
  const busy = tokenAddress(1);
  const showcase = tokenAddress(440);
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const body: { next_cursor: string | null } = await json(
      `/api/v1/tokens?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    cursor = body.next_cursor;
  }
  const detail = await json<{ creation: { creator: string } }>(`/api/v1/tokens/${showcase}`);
  const creator = detail.creation.creator;
  const holders = await json<{ items: { wallet: string }[] }>(`/api/v1/tokens/${busy}/holders?limit=1`);
  const wallet = holders.items[0]?.wallet;
  // The longest interval with 1,000 candles of the busiest token (1h on 20M trades, 5m on 2M).
  let interval = '1h';
  for (const candidate of ['1h', '15m', '5m', '1m']) {
    interval = candidate;
    const chart = await json<{ items: unknown[] }>(
      `/api/v1/tokens/${busy}/chart?interval=${candidate}&limit=1000`,
    );
    if (chart.items.length === 1000) break;
  }
  const routes: [string, string][] = [
    ['tokens, page 1 (newest)', '/api/v1/tokens'],
    ['tokens, page 501 (cursor)', `/api/v1/tokens?cursor=${cursor}`],
    ['tokens?view=top', '/api/v1/tokens?view=top'],
    ['tokens?view=near', '/api/v1/tokens?view=near'],
    ['tokens?view=linked', '/api/v1/tokens?view=linked'],
    ['tokens?search=pepmo1', '/api/v1/tokens?search=pepmo1'],
    ['tokens/trending', '/api/v1/tokens/trending'],
    ['token detail', `/api/v1/tokens/${showcase}`],
    ['pricing', `/api/v1/tokens/${showcase}/pricing`],
    [`chart ${interval} × 1,000`, `/api/v1/tokens/${busy}/chart?interval=${interval}&limit=1000`],
    ['trades, busiest token', `/api/v1/tokens/${busy}/trades`],
    ['activity, busiest token', `/api/v1/tokens/${busy}/activity`],
    ['holders, busiest token', `/api/v1/tokens/${busy}/holders`],
    ['creator', `/api/v1/creators/${creator}`],
    ['creator tokens', `/api/v1/creators/${creator}/tokens`],
    ['wallet holdings', `/api/v1/wallets/${wallet}/holdings`],
  ];
  const only = values.only?.split(',').map((word) => word.trim().toLowerCase());
  const selected = only
    ? routes.filter(([label]) => only.some((word) => label.toLowerCase().includes(word)))
    : routes;

  console.log('▶ same answer from both servers? (keys, order and JSON types of every field; then bytes)');
  // An answer differing only in the read cache's copy is flagged too: the cached column must
  // serve what the read path computes.
  const shapes = new Map<string, string>();
  for (const [label, pathAndQuery] of selected) {
    const [mine, bare] = [await get(launchdex, pathAndQuery), await get(floor, pathAndQuery)];
    let shape: string;
    if (mine.status !== 200 || bare.status !== 200) {
      shape = `status ${mine.status} vs ${bare.status}`;
    } else {
      const differences = fieldDifferences(JSON.parse(mine.body), JSON.parse(bare.body));
      shape =
        differences.length > 0
          ? differences.slice(0, 3).join('; ')
          : mine.body === bare.body
            ? 'identical'
            : 'same fields';
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

  const results: RouteResult[] = [];
  for (const [label, pathAndQuery] of selected) {
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
      command,
      postgresVersion,
      tokens,
      trades,
      seedSeconds: seed.seconds,
      seedDate: seed.date,
      launchdexWorkers: launchdex.workers,
      floorWorkers: floor.workers,
      workersAsked,
      duration,
      warmup,
      throughputConnections,
      latencyConnections,
      loadBefore,
      loadAfter: os.loadavg(),
    },
    results,
  );
  console.log(`\n${table}\n`);
  if (values.write) {
    writeReport(path.join(root, 'docs', 'benchmarks.md'), table);
    console.log('▶ docs/benchmarks.md updated');
  }
} finally {
  for (const server of servers.reverse()) await server.stop();
}
