/**
 * The hostile benchmark's victims, in a process of their own (bench/lib/hostile.ts): a
 * victim is another client, not a neighbour of the attacker's load generator, so its latency is
 * measured where nothing else of the benchmark runs. Prints autocannon's raw result (encoded
 * histograms) as JSON for the parent to pool.
 */
import autocannon from 'autocannon';
import { victimAddress } from './hostile';
import { loadOptions } from './measure';

export interface VictimRun {
  baseUrl: string;
  path: string;
  victims: number;
  /** Requests per second of each victim. */
  rate: number;
  seconds: number;
}

const run = JSON.parse(process.argv[2] ?? '') as VictimRun;
const raw: unknown = await autocannon({
  ...loadOptions(run.baseUrl, run.path, run.victims, {
    connectionHeaders: (connection) => ({ 'x-forwarded-for': victimAddress(connection) }),
    connectionRate: run.rate,
  }),
  duration: run.seconds,
  skipAggregateResult: true,
});
process.stdout.write(JSON.stringify(raw));
