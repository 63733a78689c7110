import autocannon from 'autocannon';
import type { BenchServer } from './servers';

/** One autocannon run against one server. */
export interface Run {
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Requests answered (any status) in the run. */
  requests: number;
  /** Non-2xx answers, socket errors and timeouts. */
  errors: number;
  /** Server CPU (its process tree, user + system) per answered request, in ms. */
  cpuMsPerRequest: number;
}

/**
 * Drives `pathAndQuery` on `server` with `connections` keep-alive connections for `seconds`,
 * reading the server's CPU time from /proc before and after.
 */
export async function measure(
  server: BenchServer,
  pathAndQuery: string,
  connections: number,
  seconds: number,
): Promise<Run> {
  const cpuBefore = server.cpuSeconds();
  const result = await autocannon({
    url: `${server.baseUrl}${pathAndQuery}`,
    connections,
    duration: seconds,
    pipelining: 1,
  });
  const cpu = server.cpuSeconds() - cpuBefore;
  const requests = result.requests.total;
  return {
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests,
    errors: result.errors + result.non2xx + result.timeouts,
    cpuMsPerRequest: requests > 0 ? (cpu * 1000) / requests : Number.NaN,
  };
}

/** A short untimed run: JIT, prepared statements on every pooled connection, caches. */
export async function warm(server: BenchServer, pathAndQuery: string, seconds: number): Promise<void> {
  if (seconds <= 0) return;
  await autocannon({
    url: `${server.baseUrl}${pathAndQuery}`,
    connections: 16,
    duration: seconds,
    pipelining: 1,
  });
}
