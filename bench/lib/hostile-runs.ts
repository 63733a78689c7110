/**
 * `npm run bench -- --hostile` (bench/api.ts): Launchdex as shipped, started once per
 * worker count and `--database-ms` value, measured by {@link runHostile}; prints the markdown
 * table and, with `--write`, puts it into docs/benchmarks.md between the bench:hostile markers.
 */
import { shippedLimits } from '../../test/app-server';
import {
  describeStatuses,
  type HostileResult,
  type HostileSettings,
  renderHostile,
  runHostile,
} from './hostile';
import { type RunContext, writeMarkedSection } from './report';
import { type BenchServer, startLaunchdex } from './servers';

export interface HostileBenchOptions extends HostileSettings {
  /** Every server's environment before the shipped limits: database, data dir, secrets. */
  baseEnv: Record<string, string>;
  workerCounts: number[];
  /** DATABASE_MS_PER_SECOND_PER_CLIENT per run, in turn (undefined: the shipped default). */
  databaseMs: (string | undefined)[];
  /** What the report states about the run (command, dataset, load), read when it is written. */
  context: () => RunContext;
  /** The caller's running servers (printed and stopped on failure): each run's is listed while it runs. */
  servers: BenchServer[];
  /** The docs file to write the table into (`--write`); printed only when absent. */
  writeTo?: string;
}

/** `--hostile`: a paced victim's latency, quiet and while one client attacks, per worker count. */
export async function benchHostile(options: HostileBenchOptions): Promise<void> {
  const { servers } = options;
  const { trades } = options.context();
  // As shipped: the default read cache, rate limits and per-client caps (startAppServer's own
  // generous test limits are put back to the defaults); clients told apart by X-Forwarded-For.
  const env = { ...options.baseEnv, ...shippedLimits, TRUSTED_PROXY_HOPS: '1' };
  const results: HostileResult[] = [];
  for (const workers of options.workerCounts)
    for (const ms of options.databaseMs) {
      const server = await startLaunchdex(
        ms === undefined ? env : { ...env, DATABASE_MS_PER_SECOND_PER_CLIENT: ms },
        workers,
      );
      servers.push(server);
      console.log(
        `▶ Launchdex as shipped ${server.baseUrl} (pid ${server.pid}, ${server.workers} worker(s))`,
      );
      try {
        const result = await runHostile(server, trades, options);
        results.push(ms === undefined ? result : { ...result, databaseMs: ms });
        console.log(
          `  ${workers} worker(s)${ms === undefined ? '' : `, DATABASE_MS_PER_SECOND_PER_CLIENT=${ms}`}: victim p50/p99 quiet ${result.quiet.p50}/${result.quiet.p99} ms, attacked ${result.attacked.p50}/${result.attacked.p99} ms, after ${result.after.p50}/${result.after.p99} ms (victim answers ${describeStatuses(result.quiet)} | ${describeStatuses(result.attacked)}); attacker ${describeStatuses(result.attacker)}, ${result.attacker.socketErrors} without answer`,
        );
      } finally {
        servers.splice(servers.indexOf(server), 1);
        await server.stop();
      }
    }
  const table = renderHostile({ ...options.context(), ...options, limits: shippedLimits }, results);
  console.log(`\n${table}\n`);
  if (options.writeTo) {
    writeMarkedSection(
      options.writeTo,
      'hostile',
      'Read API under a hostile client (`npm run bench -- --hostile`)',
      table,
    );
    console.log('▶ docs/benchmarks.md updated (bench:hostile)');
  }
}
