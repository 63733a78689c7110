/**
 * `node --import tsx bench/replicas.ts [--tokens 50000] [--trades 500000] [--seconds 5]
 *   [--connections 16] [--rounds 2]` (`npm run bench:replicas`; needs `npm run build`)
 *
 * The real server (`npm run serve`, one process, READ_CACHE_MB=0 so every request reaches a
 * database) started twice over one dataset: once with DATABASE_URL only (every read on the
 * primary), once with DATABASE_READ_URLS naming a hot standby of it on the same box
 * (test/replication.ts: a primary cluster of its own and a `pg_basebackup -R` standby),
 * so reads go to the replica. Each route is driven with autocannon on both, alternating, for
 * `--rounds` rounds: req/s and p99 per route and run. Then the routing check alone, in process
 * (which database, and the block a cursor carries), against the uncached path's server CPU per
 * request. The dataset is `npm run seed:scale`'s, into the harness's primary.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import postgres from 'postgres';
import { cursorBlock, encodeCursor } from '../server/api/cursor';
import { highestBlock } from '../server/api/min-block';
import { createReplicaSet } from '../server/db/replicas';
import { startReplicatedPostgres } from '../test/replication';
import { seedScaleArgs } from './lib/dataset';
import { measure, warm } from './lib/measure';
import { type BenchServer, outOfReachLimits, startLaunchdex } from './lib/servers';

const { values } = parseArgs({
  options: {
    tokens: { type: 'string', default: '50000' },
    trades: { type: 'string', default: '500000' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '2' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const root = path.resolve(import.meta.dirname, '..');
const cursorSecret = 'bench-replicas-cursor-secret-0123456789';

const pg = await startReplicatedPostgres({
  // The harness's defaults are a test's; a benchmark's dataset stays in memory on both.
  settings: ['shared_buffers = 256MB', 'effective_cache_size = 1GB'],
});
const servers: BenchServer[] = [];
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'launchdex-bench-replicas-'));
try {
  const seedStarted = performance.now();
  await promisify(execFile)(process.execPath, seedScaleArgs(pg.primaryUrl, values.tokens, values.trades), {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  await pg.caughtUp(300_000);
  console.log(
    `seeded ${values.tokens} tokens / ${values.trades} trades in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s; the standby has replayed it`,
  );

  const env = {
    DATABASE_URL: pg.primaryUrl,
    INDEXER_MODE: 'off',
    DATA_DIR: dataDir,
    CURSOR_SECRET: cursorSecret,
    READ_CACHE_MB: '0',
    ...outOfReachLimits,
  };
  const onPrimary = { ...(await startLaunchdex(env, 1)), name: 'primary only' };
  servers.push(onPrimary);
  const onReplica = {
    ...(await startLaunchdex({ ...env, DATABASE_READ_URLS: pg.replicaUrl, REPLICA_POLL_MS: '250' }, 1)),
    name: 'reads on replica',
  };
  servers.push(onReplica);

  const text = async (server: BenchServer, pathAndQuery: string) => {
    const response = await fetch(`${server.baseUrl}${pathAndQuery}`);
    const body = await response.text();
    if (response.status !== 200)
      throw new Error(`${pathAndQuery} on ${server.name}: ${response.status} ${body}`);
    return body;
  };
  const json = async <T>(pathAndQuery: string) => JSON.parse(await text(onPrimary, pathAndQuery)) as T;
  const newest = await json<{ items: { address: string }[]; next_cursor: string }>('/api/v1/tokens');
  // The token with the most trades (seed:scale gives one token 6 % of them): trades have a page 2.
  const admin = postgres(pg.primaryUrl, { max: 1, onnotice: () => {} });
  const [busiest] = await admin<{ token: string }[]>`
    select token_address as token from trades group by 1 order by count(*) desc limit 1`;
  await admin.end();
  const busy = busiest?.token ?? '';
  const trades = await json<{ next_cursor: string }>(`/api/v1/tokens/${busy}/trades`);
  const symbol = (await json<{ identity: { symbol: string } }>(`/api/v1/tokens/${busy}`)).identity.symbol;
  const routes: [string, string][] = [
    ['tokens, page 1 (newest)', '/api/v1/tokens'],
    ['tokens, page 2 (cursor)', `/api/v1/tokens?cursor=${encodeURIComponent(newest.next_cursor)}`],
    ['tokens?view=top', '/api/v1/tokens?view=top'],
    ['token detail', `/api/v1/tokens/${busy}`],
    ['trades, page 1', `/api/v1/tokens/${busy}/trades`],
    [
      'trades, page 2 (cursor)',
      `/api/v1/tokens/${busy}/trades?cursor=${encodeURIComponent(trades.next_cursor)}`,
    ],
    ['search', `/api/v1/tokens?search=${encodeURIComponent(symbol.toLowerCase().slice(0, 4))}`],
  ];
  for (const [, route] of routes) {
    const [a, b] = await Promise.all([onPrimary, onReplica].map((server) => text(server, route)));
    if (a !== b) throw new Error(`${route}: the two servers answer differently`);
  }

  /** Server CPU per request of every run on the primary-only server: the uncached path's cost. */
  const primaryCpuMs: number[] = [];
  for (const [label, route] of routes) {
    for (const server of [onPrimary, onReplica]) await warm(server, route, 2);
    for (let round = 0; round < rounds; round++)
      for (const server of round % 2 === 0 ? [onPrimary, onReplica] : [onReplica, onPrimary]) {
        const run = await measure(server, route, connections, seconds);
        if (run.errors > 0) throw new Error(`${label} on ${server.name}: ${run.errors} errors`);
        if (server === onPrimary) primaryCpuMs.push(run.cpuMsPerRequest);
        console.log(
          `${label.padEnd(26)} ${server.name.padEnd(17)} ${String(run.requestsPerSecond).padStart(6)} req/s  p99 ${String(run.p99).padStart(4)} ms  cpu ${run.cpuMsPerRequest.toFixed(3)} ms/req`,
        );
      }
  }
  const ready = (await (await fetch(`${onReplica.baseUrl}/api/ready`)).json()) as { replicas?: unknown };
  console.log(`replica server readiness: ${JSON.stringify(ready.replicas)}`);

  // The routing check alone: the database for a read (two polled replicas) and the block a
  // cursor carries (read unverified; its list verifies it), what a replicated instance adds.
  const set = createReplicaSet({
    primary: 'p',
    replicas: [
      { name: 'a', db: 'a' },
      { name: 'b', db: 'b' },
    ],
    readPosition: async () => ({ block: 1_000, version: 1n }),
    maxLagBlocks: 16,
    pollMs: 60_000,
    pollDeadlineMs: 1_000,
  });
  await set.poll();
  const cursor = encodeCursor('tokens.new', [123_456, 7], cursorSecret, 999);
  // CPU time, not wall time: on a shared box the wall clock also counts other processes' turns.
  const timed = (count: number, work: (i: number) => number) => {
    let sink = 0;
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) sink += work(i);
    const used = process.cpuUsage(before);
    if (sink < 0) console.log(sink);
    return ((used.user + used.system) * 1000) / count;
  };
  timed(200_000, (i) => set.route(i % 3 === 0 ? 999 : undefined).name.length);
  timed(50_000, () => cursorBlock(cursor) ?? 0);
  const routeNs = timed(2_000_000, (i) => set.route(i % 3 === 0 ? 999 : undefined).name.length);
  const cursorNs = timed(200_000, () => highestBlock(cursorBlock(cursor), undefined) ?? 0);
  const uncachedCpuMs = Math.min(...primaryCpuMs);
  console.log(
    `route(): ${routeNs.toFixed(0)} ns per decision; a cursor's block: ${(cursorNs / 1000).toFixed(2)} µs; ` +
      `together ${(((routeNs + cursorNs) / 1e6 / uncachedCpuMs) * 100).toFixed(2)} % of the cheapest uncached request's server CPU (${uncachedCpuMs.toFixed(3)} ms)`,
  );
} catch (error) {
  for (const server of servers) {
    const printed = server.output?.().trim();
    if (printed) console.error(`▶ ${server.name} printed:\n${printed.slice(-4000)}`);
  }
  throw error;
} finally {
  for (const server of servers.reverse()) await server.stop();
  await pg.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
