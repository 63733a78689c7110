/**
 * `npm run chaos -- [--seeds N] [--from S] [--seed S] [--backend postgres|pglite] [--limits 1,7,100] [--faults db] [--no-stream] [--no-webhooks] [--json FILE]`
 *
 * Seeded chaos runs (test/chaos/run-seed.ts): each seed draws a launchpad scenario with
 * reorgs, indexer SIGKILLs and RPC faults, lets the index settle and compares every read answer
 * of the API, every list page by page, with the oracle computed from the canonical chain, and
 * what a stream consumer holding `/api/v1/stream` through the seed applied and what a webhook
 * receiver (failing at random) holds. Seeds
 * `--from` … `--from + N - 1` (default 1 … 5), or only `--seed S` (to replay a failing seed).
 * PostgreSQL is `TEST_POSTGRES_URL` (default postgres://postgres@127.0.0.1:5432/postgres; a fresh
 * database per seed, dropped after), PGlite when PostgreSQL is not reachable or with
 * `--backend pglite`. Needs `npx next build` (the settle phase runs the production server).
 * `--no-stream` leaves the stream consumer out (to tell a stream failure from an index one);
 * `--no-webhooks` the webhook receiver (test/chaos/webhook-consumer.ts).
 * `--faults db` adds database faults (test/chaos/db-faults.ts): the seed's database is a
 * primary and a standby of its own behind loopback proxies, frozen, restarted, slowed, cut off
 * and failed over at seeded steps while a reader and a draft uploader load the web process; a
 * request unanswered past its deadlines plus 1 s, an answer 500 or a lost draft fails the seed.
 * Prints a line per seed and a summary; exits 1 when any answer differs.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type ChaosResult, runChaosSeed } from '../test/chaos/run-seed';
import { availableBackends, type Backend } from '../test/database';
import { describeDifference } from '../test/oracle/compare';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '5' },
    from: { type: 'string', default: '1' },
    seed: { type: 'string' },
    backend: { type: 'string' },
    limits: { type: 'string', default: '1,7,100' },
    json: { type: 'string' },
    'no-stream': { type: 'boolean', default: false },
    'no-webhooks': { type: 'boolean', default: false },
    faults: { type: 'string' },
  },
});

const backend = (values.backend ?? (await availableBackends())[0]) as Backend;
if (backend !== 'postgres' && backend !== 'pglite') throw new Error(`--backend must be postgres or pglite`);
const seeds =
  values.seed !== undefined
    ? [Number(values.seed)]
    : Array.from({ length: Number(values.seeds) }, (_, i) => Number(values.from) + i);
const limits = values.limits.split(',').map(Number);
if (values.faults !== undefined && values.faults !== 'db') throw new Error('--faults takes db');
const dbFaults = values.faults === 'db';
if (dbFaults && backend !== 'postgres') throw new Error('--faults db needs PostgreSQL (--backend postgres)');
const started = Date.now();
const clock = () => `[${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s]`;

console.log(
  `${clock()} chaos: ${seeds.length} seed(s) on ${backend}${dbFaults ? ' with database faults' : ''}, lists walked at limits ${limits.join(', ')}`,
);
const results: ChaosResult[] = [];
const failed: number[] = [];
for (const seed of seeds) {
  console.log(`${clock()} seed ${seed}`);
  let result: ChaosResult;
  try {
    result = await runChaosSeed({
      seed,
      backend,
      limits,
      stream: !values['no-stream'],
      webhooks: !values['no-webhooks'],
      dbFaults,
      log: (line) => console.log(`${clock()} ${line}`),
    });
  } catch (error) {
    failed.push(seed);
    console.log(`${clock()} seed ${seed} FAILED to run: ${(error as Error).stack ?? error}`);
    continue;
  }
  results.push(result);
  const faults = Object.values(result.faults).reduce((a, b) => a + b, 0);
  console.log(
    `${clock()} seed ${seed}: ${result.launches} launches (${result.canonicalLaunches} canonical), ${result.actions} actions (${result.reverted} undone by reorgs), ` +
      `${result.reorgs.length} reorgs (depths ${result.reorgs.join(', ')}), ${result.kills} kills, ${faults} RPC faults, ` +
      `head ${result.head}, ${result.answers} answers in ${result.requests} requests, ` +
      `${result.differences.length} differences, ${result.seconds.toFixed(1)} s`,
  );
  console.log(
    `${clock()} seed ${seed} insiders: ${JSON.stringify(result.insiders)}; labels on the canonical chain: ${JSON.stringify(result.labels)}`,
  );
  const stream = result.stream;
  if (!values['no-stream'])
    console.log(
      `${clock()} seed ${seed} stream consumer: ${stream.events} events in ${stream.connections} connections ` +
        `(${stream.disconnects} own disconnects, ${stream.webRestarts} web restarts, ${stream.dropped} dropped), ` +
        `${stream.reorgs} reorgs (lowest kept block ${stream.lowestReorg ?? '-'}), ${stream.resets} resets, ${stream.refetches} refetches`,
    );
  const hooks = result.webhooks;
  if (hooks)
    console.log(
      `${clock()} seed ${seed} webhook receiver: ${hooks.posts} POSTs of up to ${hooks.batchSize} events, ${hooks.applied} applied (${hooks.duplicates} duplicates, ${hooks.retractions} retractions), ` +
        `${hooks.failed500} answered 500, ${hooks.hung} hung, ${hooks.downStretches} stretches down`,
    );
  if (result.database) {
    const { faults, load } = result.database;
    const applied = Object.entries(faults)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${kind} ${n}`);
    console.log(
      `${clock()} seed ${seed} database faults: ${applied.join(', ') || 'none'}; load ${load.requests} requests ` +
        `(${Object.entries(load.statuses)
          .map(([status, n]) => `${status}: ${n}`)
          .join(
            ', ',
          )}), p50 ${load.p50Ms} ms, p99 ${load.p99Ms} ms, max ${load.maxMs} ms, ${load.hung} hung, ${load.drafts} drafts stored` +
        (load.unanswered.length > 0 ? `; no answer: ${load.unanswered.join('; ')}` : ''),
    );
  }
  if (result.differences.length > 0) {
    failed.push(seed);
    console.log(describeDifference(result.differences[0] as (typeof result.differences)[number]));
    console.log(
      `replay: npm run chaos -- --seed ${seed} --backend ${backend}${dbFaults ? ' --faults db' : ''}`,
    );
  }
}

const sum = (f: (r: ChaosResult) => number) => results.reduce((total, r) => total + f(r), 0);
const summary = {
  backend,
  seeds: seeds.length,
  completed: results.length,
  failedSeeds: failed,
  launches: sum((r) => r.launches),
  actions: sum((r) => r.actions),
  reorgs: sum((r) => r.reorgs.length),
  deepestReorg: Math.max(0, ...results.flatMap((r) => r.reorgs)),
  kills: sum((r) => r.kills),
  rpcFaults: sum((r) => Object.values(r.faults).reduce((a, b) => a + b, 0)),
  answers: sum((r) => r.answers),
  requests: sum((r) => r.requests),
  differences: sum((r) => r.differences.length),
  streamReorgs: sum((r) => r.stream.reorgs),
  streamConnections: sum((r) => r.stream.connections),
  webhookPosts: sum((r) => r.webhooks?.posts ?? 0),
  webhookDuplicates: sum((r) => r.webhooks?.duplicates ?? 0),
  webhookRetractions: sum((r) => r.webhooks?.retractions ?? 0),
  databaseFaults: sum((r) => Object.values(r.database?.faults ?? {}).reduce((a, b) => a + b, 0)),
  promotions: sum((r) => r.database?.faults.promote ?? 0),
  loadRequests: sum((r) => r.database?.load.requests ?? 0),
  loadHung: sum((r) => r.database?.load.hung ?? 0),
  loadMaxMs: Math.max(0, ...results.map((r) => r.database?.load.maxMs ?? 0)),
  seconds: Math.round((Date.now() - started) / 1000),
};
console.log(`${clock()} summary ${JSON.stringify(summary)}`);
if (values.json) writeFileSync(values.json, `${JSON.stringify({ summary, results }, null, 2)}\n`);
process.exit(failed.length > 0 ? 1 : 0);
