/**
 * `node --import tsx bench/cluster-limits.ts [--store primary|redis|memory] [--workers 2]
 * [--in-flight 64] [--seconds 3] [--redis-url redis://127.0.0.1:6379]`
 *
 * What a rate-limit check costs in a worker of `npm run serve --workers N`, without HTTP or a
 * database: each worker runs `--in-flight` loops that take one read from a bucket and yield one
 * event-loop turn (as a request would), through the real cluster limiter (`primary`: the buckets
 * the primary holds, asked over IPC), Redis (`redis`) or the worker's own memory (`memory`, which
 * is not shared: the baseline). Prints checks per second, CPU per check in the workers and the
 * primary, how many checks one IPC message carried, and the wait for an answer (docs/decisions.md,
 * "Web workers").
 */
import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { createWorkerLimits } from '../server/http/cluster/limit-client';
import { createLimitTable } from '../server/http/cluster/limit-table';
import { isLimitAnswers, isLimitRequests } from '../server/http/cluster/protocol';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from '../server/http/rate-limit';
import { quantile } from './lib/measure';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'primary' },
    workers: { type: 'string', default: '2' },
    'in-flight': { type: 'string', default: '64' },
    seconds: { type: 'string', default: '3' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
  },
});
const store = values.store;
if (store !== 'primary' && store !== 'redis' && store !== 'memory') {
  console.error('--store must be primary, redis or memory');
  process.exit(1);
}
const workers = Math.max(1, Number(values.workers));
const inFlight = Math.max(1, Number(values['in-flight']));
const durationMs = Math.max(1, Number(values.seconds)) * 1000;
/** A bucket nobody exhausts: the check's cost is measured, not refusals. */
const policy = { perMinute: 1e9, burst: 1e9 };

interface WorkerReport {
  checks: number;
  cpuMicros: number;
  waitP50: number;
  waitP99: number;
}

if (cluster.isPrimary) {
  const table = createLimitTable();
  let messages = 0;
  const reports: WorkerReport[] = [];
  const cpuBefore = process.cpuUsage();
  cluster.on('message', (worker, message: unknown) => {
    if (isLimitRequests(message)) {
      messages++;
      worker.send(table.answer(worker.id, message));
      return;
    }
    const report = (message as { report?: WorkerReport }).report;
    if (!report) return;
    reports.push(report);
    if (reports.length < workers) return;
    const cpu = process.cpuUsage(cpuBefore);
    const checks = reports.reduce((sum, r) => sum + r.checks, 0);
    const perSecond = (n: number) => Math.round(n / (durationMs / 1000)).toLocaleString('en');
    console.log(`store=${store} workers=${workers} in-flight=${inFlight} (per worker)`);
    for (const [i, r] of reports.entries())
      console.log(
        `  worker ${i + 1}: ${perSecond(r.checks)} checks/s, ${(r.cpuMicros / r.checks).toFixed(2)} µs CPU per check, wait p50 ${r.waitP50.toFixed(3)} ms, p99 ${r.waitP99.toFixed(3)} ms`,
      );
    if (store === 'primary')
      console.log(
        `  primary: ${((cpu.user + cpu.system) / checks).toFixed(2)} µs CPU per check, ${(checks / messages).toFixed(1)} checks per message`,
      );
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  let limiter: RateLimiter;
  if (store === 'memory') limiter = createMemoryRateLimiter();
  else if (store === 'redis')
    limiter = await createRedisRateLimiter(values['redis-url'], { prefix: 'launchdex:bench:' });
  else
    limiter = createWorkerLimits({
      send: (requests) => process.send?.(requests),
      onAnswers: (listener) =>
        process.on('message', (message: unknown) => {
          if (isLimitAnswers(message)) listener(message);
        }),
    }).rateLimiter;
  const waits: number[] = [];
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const loop = async () => {
    while (performance.now() - started < durationMs) {
      const asked = performance.now();
      await limiter.take('reads:203.0.113.9', policy, 1);
      waits.push(performance.now() - asked);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  const cpu = process.cpuUsage(cpuBefore);
  waits.sort((a, b) => a - b);
  const report: WorkerReport = {
    checks: waits.length,
    cpuMicros: cpu.user + cpu.system,
    waitP50: quantile(waits, 0.5),
    waitP99: quantile(waits, 0.99),
  };
  process.send?.({ report });
}
