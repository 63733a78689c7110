import postgres from 'postgres';
import { type CacheCounts, cacheDelta, cacheShares, readCacheCounts } from './cache-metrics';
import { busyTokensMixed, type RouteClass } from './fixtures';
import { measure, type Run, warm } from './measure';
import {
  agrees,
  load,
  machineLine,
  markdownTable,
  markedLabel,
  type RunContext,
  versusCells,
  versusHeadings,
} from './report';
import type { BenchServer } from './servers';

/**
 * Moves the read model on a side connection: every `period` ms, the statement every writer of the
 * read model runs (server/db/read-version.ts), so the server's read cache is emptied as an
 * indexed block range would empty it. `every(ms)` bumps every `ms` from now on (the first after `ms`).
 */
function startBumper(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  let bumps = 0;
  let generation = 0;
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;
  const schedule = (mine: number, period: number, at: number) => {
    timer = setTimeout(
      async () => {
        if (mine !== generation) return;
        const started = Date.now();
        try {
          await sql`insert into read_model_version (id, version) values (1, 1)
            on conflict (id) do update set version = read_model_version.version + 1`;
          bumps++;
        } catch (error) {
          failure ??= error;
        }
        if (mine === generation) schedule(mine, period, started + period);
      },
      Math.max(0, at - Date.now()),
    );
  };
  return {
    every(ms: number) {
      clearTimeout(timer);
      generation++;
      schedule(generation, ms, Date.now() + ms);
    },
    /** Bumps committed so far. */
    get bumps() {
      return bumps;
    },
    async stop() {
      generation++;
      clearTimeout(timer);
      await sql.end();
      if (failure) throw failure;
    },
  };
}

/** Launchdex (read cache on) at one bump period: a run, the cache's outcomes, the bumps in it. */
export interface LiveRun {
  run: Run;
  cache: CacheCounts | undefined;
  bumps: number;
}

export interface LiveResult {
  label: string;
  urls: number;
  /** `identical` / `same fields` for every URL of the mix, else what differs. */
  shape: string;
  floor: { throughput: Run; latency: Run };
  /** By bump period (ms). */
  launchdex: Map<number, { throughput: LiveRun; latency: LiveRun }>;
}

export interface LiveOptions {
  databaseUrl: string;
  launchdex: BenchServer;
  floor: BenchServer;
  metricsToken: string;
  routes: RouteClass[];
  shapes: Map<string, string>;
  bumpPeriods: number[];
  duration: number;
  warmup: number;
  throughputConnections: number;
  latencyConnections: number;
}

/**
 * Every route class's mix, interleaved as the main runs are: at 64 connections Launchdex at the
 * first bump period, the floor, Launchdex at the other periods; the same at 16. The floor reads
 * no version, so one floor run per concurrency serves every period.
 */
export async function runLive(options: LiveOptions): Promise<LiveResult[]> {
  const { launchdex, floor, metricsToken, bumpPeriods, duration } = options;
  const [firstPeriod, ...otherPeriods] = bumpPeriods;
  if (firstPeriod === undefined) throw new Error('--bump-ms needs at least one period');
  const bumper = startBumper(options.databaseUrl);
  const results: LiveResult[] = [];
  try {
    const launchdexRun = async (mix: string[], period: number, connections: number): Promise<LiveRun> => {
      bumper.every(period);
      const before = await readCacheCounts(launchdex, metricsToken);
      const bumpsBefore = bumper.bumps;
      const run = await measure(launchdex, mix, connections, duration);
      const bumps = bumper.bumps - bumpsBefore;
      const after = await readCacheCounts(launchdex, metricsToken);
      return { run, cache: cacheDelta(before, after), bumps };
    };
    for (const route of options.routes) {
      bumper.every(firstPeriod);
      await warm(launchdex, route.mix, options.warmup);
      await warm(floor, route.mix, options.warmup);
      // Launchdex's runs in bumpPeriods' order, the floor's after the first.
      const atConcurrency = async (connections: number) => {
        const byPeriod = [await launchdexRun(route.mix, firstPeriod, connections)];
        const floorRun = await measure(floor, route.mix, connections, duration);
        for (const period of otherPeriods) byPeriod.push(await launchdexRun(route.mix, period, connections));
        return { floorRun, byPeriod };
      };
      const throughput = await atConcurrency(options.throughputConnections);
      const latency = await atConcurrency(options.latencyConnections);
      const launchdexRuns = new Map(
        bumpPeriods.map((period, i) => [
          period,
          { throughput: throughput.byPeriod[i] as LiveRun, latency: latency.byPeriod[i] as LiveRun },
        ]),
      );
      const result: LiveResult = {
        label: route.label,
        urls: route.mix.length,
        shape: options.shapes.get(route.label) ?? 'unchecked',
        floor: { throughput: throughput.floorRun, latency: latency.floorRun },
        launchdex: launchdexRuns,
      };
      results.push(result);
      const line = bumpPeriods
        .map((period) => {
          const runs = launchdexRuns.get(period) as { throughput: LiveRun; latency: LiveRun };
          const ratio = runs.throughput.run.requestsPerSecond / result.floor.throughput.requestsPerSecond;
          return `${period} ms: ${runs.throughput.run.requestsPerSecond} req/s (${ratio.toFixed(2)}), p99 ${runs.latency.run.p99} ms, hits ${cacheShares(runs.throughput.cache)} | ${cacheShares(runs.latency.cache)}, ${runs.throughput.bumps}+${runs.latency.bumps} bumps`;
        })
        .join('; ');
      console.log(
        `  ${route.label.padEnd(28)} floor ${result.floor.throughput.requestsPerSecond} req/s, p99 ${result.floor.latency.p99} ms; ${line}`,
      );
    }
  } finally {
    await bumper.stop();
  }
  return results;
}

export interface LiveReportContext
  extends RunContext,
    Pick<
      LiveOptions,
      'duration' | 'warmup' | 'throughputConnections' | 'latencyConnections' | 'bumpPeriods'
    > {
  workers: number;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The markdown of a `--live` run: what ran, the method, one table per bump period. */
export function renderLive(c: LiveReportContext, results: LiveResult[]): string {
  const hitsReported = results.some((r) => [...r.launchdex.values()].some((runs) => runs.throughput.cache));
  const lines = [
    machineLine(c.postgresVersion),
    `Dataset: ${c.tokens.toLocaleString('en-US')} tokens / ${c.trades.toLocaleString('en-US')} trades (\`npm run seed:scale\`).`,
    `Launchdex as shipped: \`npm run serve\`, ${plural(c.workers, 'process', 'workers')}, read cache on (\`READ_CACHE_MB\` default), indexer off,`,
    "`LOG_LEVEL=warn`, `METRICS_TOKEN` set, rate limits and per-client caps out of one load generator's reach (as above);",
    `floor: \`bench/floor.ts\`, ${plural(c.workers, 'process', 'workers')}. Load average (1/5/15 min) ${load(c.loadBefore)} before, ${load(c.loadAfter)} after.`,
    `Command: \`${c.command}\`.`,
    '',
    `Method: a side connection bumps \`read_model_version\` (the statement every writer of the read model runs,` +
      " `server/db/read-version.ts`) every period below, so each bump empties Launchdex's read cache as an" +
      ' indexed block range does. Each route class is driven with a mix of URLs (column "URLs"): several' +
      ' tokens (the busiest, 0x…01, which every wallet holds; the one whose `holders` count is highest; the' +
      ` graduated showcase 0x…1b8; tokens ${busyTokensMixed.join(', ')} and one of the long tail), their creators, the` +
      " busiest token's top holders' wallets, or several symbol-prefix searches; each connection goes round" +
      ' its mix from its own place, so after a bump the misses fall on every key of the class. The lists' +
      ` (page 1, page 501, views, trending) are one URL each, as every visitor reads the same page. Per class,` +
      ` ${c.warmup} s of warm-up on each server, then ${c.duration} s autocannon runs interleaved: at` +
      ` ${c.throughputConnections} connections Launchdex at ${c.bumpPeriods[0]} ms, the floor, Launchdex at` +
      ` ${c.bumpPeriods.slice(1).join(', ')} ms; then the same at ${c.latencyConnections} connections (p99). The floor` +
      ' reads no version, so its one run per concurrency is the reference of every period. Cache outcomes' +
      ' are the `launchdex_read_cache_requests_total` counter (`result` = hit, joined: a miss that waited' +
      " for another request's fill of the same key, miss) read from `GET /api/metrics` before and after" +
      ` each Launchdex run${hitsReported ? '' : ' (the server measured does not export it yet: n/a)'}.`,
  ];
  for (const period of c.bumpPeriods) {
    const bumps = results.flatMap((r) => {
      const runs = r.launchdex.get(period);
      return runs ? [runs.throughput.bumps, runs.latency.bumps] : [];
    });
    lines.push(
      '',
      `**Version bumped every ${period.toLocaleString('en-US')} ms** (${Math.min(...bumps)}–${Math.max(...bumps)} bumps per ${c.duration} s run):`,
      '',
      ...markdownTable(
        [
          'route',
          'URLs',
          ...versusHeadings(c),
          `hit / joined / miss % (${c.throughputConnections})`,
          `hit / joined / miss % (${c.latencyConnections})`,
        ],
        results.map((r) => {
          const runs = r.launchdex.get(period);
          return [
            markedLabel(r),
            String(r.urls),
            ...versusCells(runs && { throughput: runs.throughput.run, latency: runs.latency.run }, r.floor),
            cacheShares(runs?.throughput.cache),
            cacheShares(runs?.latency.cache),
          ];
        }),
      ),
    );
  }
  const sameBytes = results.filter((r) => r.shape === 'identical').length;
  const sameFields = results.filter((r) => r.shape === 'same fields').length;
  lines.push(
    '',
    `Answers compared at start-up, every URL of every mix: ${sameBytes} of ${results.length} route classes byte-identical between the two servers, ${sameFields} with the same fields but other bytes.`,
  );
  for (const r of results.filter((r) => !agrees(r.shape))) lines.push(`† ${r.label}: ${r.shape}.`);
  const errors = results.flatMap((r) => {
    const runs: [string, Run][] = [
      ['floor', r.floor.throughput],
      ['floor', r.floor.latency],
    ];
    for (const [period, { throughput, latency }] of r.launchdex)
      for (const { run } of [throughput, latency]) runs.push([`Launchdex, ${period} ms`, run]);
    return runs
      .filter(([, run]) => run.errors > 0)
      .map(([name, run]) => `${r.label} (${name}, ${run.connections} connections): ${run.errors}`);
  });
  lines.push(
    errors.length === 0
      ? 'No errors or non-2xx answers in any run.'
      : `Errors or non-2xx answers: ${errors.join('; ')}.`,
  );
  return lines.join('\n');
}
