/**
 * `npm run bench:worst -- [--database-url URL] [--only substr] [--repeat N] [--json file] [--write]
 *   [--slow-ms 5000] [--timeout-ms 60000] [--statement-timeout-ms N]`
 *
 * A cost fuzzer for the read API: for every GET route of /api/v1, the slowest answer over the
 * parameters the API accepts. Runs on the seeded benchmark database of `npm run bench`
 * (1M tokens / 20M trades in `launchdex_bench`; it never seeds: an incomplete database is an
 * error), starts Launchdex's production server as the bench's uncached one (indexer off,
 * READ_CACHE_MB=0, rate limits out of reach, a known CURSOR_SECRET so that cursors can be minted
 * at any key), finds the dataset's extremes with SQL (bench/lib/worst-fixtures.ts), builds
 * candidates per route (bench/lib/worst-candidates.ts) and times each one alone, `--repeat`
 * times, keeping the median: the wall time of a serial uncached request bounds its database time.
 * Prints a markdown table (worst route first), the slowest candidates and every refused (400)
 * request; `--write` puts it into docs/benchmarks.md between the bench:worst markers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { type AppServer, startAppServer } from '../test/app-server';
import { isProcessAlive } from '../test/child-process';
import { SEED_VERSION } from './lib/seed-sql';
import { outOfReachLimits } from './lib/servers';
import { aliasRoutes, buildCandidates, type Candidate } from './lib/worst-candidates';
import { findFixtures, listKeys } from './lib/worst-fixtures';
import {
  median,
  type RouteSummary,
  renderWorst,
  type Timing,
  timeCandidate,
  waitForQuiet,
  worstOf,
  writeWorst,
} from './lib/worst-report';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/launchdex_bench' },
    only: { type: 'string' },
    repeat: { type: 'string', default: '3' },
    'slow-ms': { type: 'string', default: '5000' },
    'timeout-ms': { type: 'string', default: '60000' },
    'statement-timeout-ms': { type: 'string' },
    json: { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});
const databaseUrl = values['database-url'];
const repeat = Math.max(1, Number(values.repeat));
const slowMs = Number(values['slow-ms']);
const timeoutMs = Number(values['timeout-ms']);
const only = values.only?.toLowerCase();
const cursorSecret = 'launchdex-bench-cursor-key';
const command = `npm run bench:worst -- ${process.argv.slice(2).join(' ')}`.trim();
const started = performance.now();
const log = (line: string) => console.log(line);
const selected = (route: string) => only === undefined || route.toLowerCase().includes(only);

// The dataset must be complete: this never seeds (npm run bench does), it only reads.
const sql = postgres(databaseUrl, { max: 1, prepare: false, onnotice: () => {} });
const [seedRow] = await sql<{ comment: string | null; version: string }[]>`
  select shobj_description(oid, 'pg_database') as comment, version() as version
    from pg_database where datname = current_database()`;
const seed = /^launchdex seed-scale v(\d+) tokens=(\d+) trades=(\d+) seconds=(\d+) date=(\S+)$/.exec(
  seedRow?.comment ?? '',
);
if (!seed || Number(seed[1]) !== SEED_VERSION) {
  console.error(
    `${databaseUrl} holds no complete seed-scale v${SEED_VERSION} dataset (its comment: ${JSON.stringify(seedRow?.comment ?? null)}): run \`npm run bench\` (or seed:scale) first; bench:worst never seeds.`,
  );
  await sql.end();
  process.exit(2);
}
const count = (text: string | undefined) => Number(text).toLocaleString('en-US');
const dataset = `dataset ${count(seed[2])} tokens / ${count(seed[3])} trades (\`npm run seed:scale\`, ${seed[5]})`;
const postgresVersion = /^PostgreSQL [\d.]+/.exec(seedRow?.version ?? '')?.[0] ?? 'PostgreSQL';
log(`▶ ${dataset}`);

const loadBefore = os.loadavg();
// Launchdex as bench-api.ts's uncached server runs it (bench/lib/servers.ts startLaunchdex is
// this launcher; called directly for the server's output when it exits during a request).
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'launchdex-worst-'));
const launchdexEnv = {
  DATABASE_URL: databaseUrl,
  INDEXER_MODE: 'off',
  DATA_DIR: dataDir,
  CURSOR_SECRET: cursorSecret,
  READ_CACHE_MB: '0',
  ...outOfReachLimits,
  // The server's own statement_timeout unless asked (0: none, to see what a cancelled read costs).
  ...(values['statement-timeout-ms'] === undefined
    ? {}
    : { READ_STATEMENT_TIMEOUT_MS: values['statement-timeout-ms'] }),
};
/** The running server (replaced when one exits during a request). */
let server: AppServer | undefined;
/** Server exits seen during the run: the candidate that was in flight, and the server's last output. */
const crashes: { route: string; params: string; output: string; retry: string }[] = [];
try {
  log('▶ fixtures (SQL on the dataset)');
  const fixtures = await findFixtures(sql, (line) => log(`  ${line}`), {
    wallet: selected('GET /api/v1/wallets/{address}/holdings'),
    prefixes: selected('GET /api/v1/tokens') || selected('GET /api/v1/trending'),
  });
  const keysStarted = performance.now();
  const keys = await listKeys(sql, fixtures);
  log(`  key points of ${keys.size} lists (${((performance.now() - keysStarted) / 1000).toFixed(1)} s)`);

  server = await startAppServer(launchdexEnv, { workers: 1 });
  log(`▶ Launchdex ${server.baseUrl} (pid ${server.pid}, read cache off)`);

  // Every GET route the OpenAPI document lists must have candidates.
  const openapi = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as {
    paths?: Record<string, Record<string, unknown>>;
  };
  const documented = Object.entries(openapi.paths ?? {})
    .filter(([, operations]) => 'get' in operations)
    .map(([routePath]) => `GET ${routePath}`);
  const byRoute = buildCandidates(fixtures, keys, cursorSecret);
  const uncovered = documented.filter((route) => !byRoute.has(route) && !(route in aliasRoutes));
  if (uncovered.length > 0)
    log(`  ✗ GET routes of the OpenAPI document without candidates: ${uncovered.join(', ')}`);
  const options = { baseUrl: server.baseUrl, repeat, slowMs, timeoutMs };
  /** After a request without an answer: if the server exited, report it and start another. */
  const checkServer = async (candidate: Candidate): Promise<boolean> => {
    if (!server || isProcessAlive(server.pid)) return false;
    const output = server.output().trim().split('\n').slice(-15).join('\n');
    crashes.push({ route: candidate.route, params: candidate.params, output, retry: 'not retried' });
    log(`  ✗ the server exited during ${candidate.route} ${candidate.params}; its last output:\n${output}`);
    server = await startAppServer(launchdexEnv, { workers: 1 });
    options.baseUrl = server.baseUrl;
    log(`  ▶ Launchdex restarted: ${server.baseUrl} (pid ${server.pid})`);
    return true;
  };

  // Warm-up, untimed: the first requests of a process load modules and plan statements.
  for (const [route, candidates] of byRoute)
    if (selected(route))
      for (const candidate of candidates.slice(0, 3))
        await timeCandidate(sql, candidate, { ...options, repeat: 1 });

  const summaries: RouteSummary[] = [];
  const runRoute = async (route: string, candidates: Candidate[], note?: string) => {
    const routeStarted = performance.now();
    log(`▶ ${route}: ${candidates.length} candidates${note ? ` (${note})` : ''}`);
    const timings: Timing[] = [];
    const queue = [...candidates];
    let worst: Timing | undefined;
    for (let candidate = queue.shift(); candidate; candidate = queue.shift()) {
      let timing = await timeCandidate(sql, candidate, options);
      // The server exited: the request is tried once more on a new one (a crash it causes repeats).
      if (timing.status === 0 && (await checkServer(candidate))) {
        timing = await timeCandidate(sql, candidate, options);
        const crash = crashes.at(-1);
        if (crash)
          crash.retry =
            timing.status === 0
              ? 'no answer from the new server either'
              : `the new server answered ${timing.status} in ${timing.ms.toFixed(1)} ms (so the request did not cause the exit)`;
        if (timing.status === 0) await checkServer(candidate);
      }
      timings.push(timing);
      if (timing.waitedMs > 1_000)
        log(`    (waited ${Math.round(timing.waitedMs)} ms for other statements to finish first)`);
      if (timing.status === 200 && candidate.follow)
        queue.unshift(...candidate.follow({ nextCursor: timing.nextCursor }));
      if (!worst || timing.ms > worst.ms) {
        worst = timing;
        if (timing.ms >= 20)
          log(
            `    new worst ${timing.ms.toFixed(1)} ms (${timing.status}${timing.code ? ` ${timing.code}` : ''}): ${candidate.params}`,
          );
      }
    }
    const refused = timings.filter((timing) => timing.status === 400).length;
    log(
      `  ✓ ${timings.length} timed in ${((performance.now() - routeStarted) / 1000).toFixed(1)} s: worst ${worst?.ms.toFixed(1)} ms, p50 ${median(timings.map((timing) => timing.ms)).toFixed(1)} ms, ${refused} refused (400)`,
    );
    summaries.push({ route, timings, ...(note ? { note } : {}) });
  };

  for (const [route, candidates] of byRoute) if (selected(route)) await runRoute(route, candidates);
  // An alias has its twin's handler and parameters: it is timed on the twin's 10 slowest.
  for (const [route, twinRoute] of Object.entries(aliasRoutes)) {
    const twin = summaries.find((summary) => summary.route === twinRoute);
    if (!selected(route) || !twin) continue;
    const answered = (timing: Timing) => (timing.status === 200 ? 1 : 0);
    const slowest = [...twin.timings].sort((a, b) => answered(b) - answered(a) || b.ms - a.ms).slice(0, 10);
    const [from, to] = [twinRoute, route].map((name) => name.replace(/^GET /, '')) as [string, string];
    await runRoute(
      route,
      slowest.map(({ candidate }) => ({
        route,
        params: candidate.params,
        path: `${to}${candidate.path.slice(from.length)}`,
        kind: candidate.kind,
      })),
      `the 10 slowest answered of ${from}`,
    );
  }
  await waitForQuiet(sql);

  const report = renderWorst(
    {
      command,
      postgresVersion,
      dataset,
      repeat,
      slowMs,
      loadBefore,
      loadAfter: os.loadavg(),
      seconds: (performance.now() - started) / 1000,
      fixtures: [
        `busiest token ${fixtures.busiest.address} (${fixtures.busiest.trades.toLocaleString('en-US')} trades)`,
        `most holders ${fixtures.mostHolders.address} (${fixtures.mostHolders.holders.toLocaleString('en-US')})`,
        `newest ${fixtures.newest.address}`,
        `creator ${fixtures.creator.address} (${fixtures.creator.tokens} tokens)`,
        `wallet ${fixtures.wallet.address} (${fixtures.wallet.balances} balances, ${fixtures.wallet.how})`,
        `${fixtures.prefixes.length} search prefixes counted exactly (densest ${JSON.stringify(fixtures.prefixes[0]?.prefix ?? '')}, ${(fixtures.prefixes[0]?.terms ?? 0).toLocaleString('en-US')} terms)`,
      ],
      uncovered: uncovered.filter(selected),
      crashes,
    },
    summaries,
  );
  console.log(`\n${report}\n`);
  for (const summary of summaries) {
    const worst = worstOf(summary);
    if (worst && worst.status >= 500) log(`✗ ${summary.route}: ${worst.status} ${worst.code ?? ''}`);
  }
  if (values.json) {
    const round = (value: number) => Number(value.toFixed(2));
    const json = summaries
      .flatMap((summary) => summary.timings)
      .map(({ candidate: { route, params, path: url }, status, code, ms, runs, bytes }) => ({
        route,
        params,
        path: url,
        status,
        code: code ?? null,
        ms: round(ms),
        runs: runs.map(round),
        bytes,
      }));
    writeFileSync(values.json, JSON.stringify(json, null, 1));
    log(`▶ every timing in ${values.json}`);
  }
  if (values.write) {
    writeWorst(path.resolve(import.meta.dirname, '..', 'docs', 'benchmarks.md'), report);
    log('▶ docs/benchmarks.md updated');
  }
} finally {
  await server?.stop();
  await sql.end();
  rmSync(dataDir, { recursive: true, force: true });
}
