/**
 * The hostile benchmark's attacker, in a worker thread of its own (bench/lib/hostile.ts):
 * its autocannon parses large answers (1,000 candles, 100 holders), and in the victims' thread
 * that parsing would delay the victims' own timers and count as the server's latency. A real
 * attacker is another machine; here it is at least another event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import { attackPaths } from './hostile';
import { aggregate, type LoadResult, loadOptions } from './measure';

export interface AttackerData {
  baseUrl: string;
  trades: number;
  /** The first request's number in the attacker's sequence: a later round goes on, never repeats. */
  from: number;
  connections: number;
  maxSeconds: number;
  headers: Record<string, string>;
}

if (!parentPort) throw new Error('bench/lib/attacker-thread.ts runs as a worker thread');
const port = parentPort;
const data = workerData as AttackerData;
const options: autocannon.Options = {
  ...loadOptions(data.baseUrl, attackPaths(data.trades, data.from), data.connections, {
    headers: data.headers,
  }),
  duration: data.maxSeconds,
};
const instance = autocannon(options, (error, raw) => {
  if (error) throw error;
  // Off the main thread autocannon hands back its histograms encoded: aggregate them here.
  const result = aggregate([raw], options);
  const crossed: LoadResult = {
    errors: result.errors,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
    statusCodeStats: result.statusCodeStats,
    requests: { total: result.requests.total, average: result.requests.total / raw.duration },
    latency: { p50: result.latency.p50, p99: result.latency.p99 },
  };
  port.postMessage(crossed);
});
port.on('message', () => instance.stop());
port.postMessage('started');
