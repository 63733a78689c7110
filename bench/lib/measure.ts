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
  /** Answers by HTTP status. */
  statuses: Map<number, number>;
  /** Connection errors and timeouts (no answer). */
  socketErrors: number;
  /** Server CPU (its process tree, user + system) per answered request, in ms. */
  cpuMsPerRequest: number;
}

/**
 * What a run requests: one path over and over, several paths (each connection goes round them,
 * starting at its own place, so the connections spread over them), or a new path per request.
 */
export type Target = string | readonly string[] | { next(): string };

export interface LoadOptions {
  /** Headers of every request. */
  headers?: Record<string, string>;
  /** Headers of every request of one connection (numbered from 0), e.g. its client's address. */
  connectionHeaders?: (connection: number) => Record<string, string>;
  /** Requests per second per connection; unset: the next request as soon as an answer is in. */
  connectionRate?: number;
}

/** autocannon's options for `target` on the server at `baseUrl`. */
export function loadOptions(
  baseUrl: string,
  target: Target,
  connections: number,
  options: LoadOptions = {},
): autocannon.Options {
  const paths = typeof target === 'string' ? [target] : 'next' in target ? undefined : target;
  let connection = 0;
  const requestsOf = (index: number): autocannon.Request[] => {
    const headers = { ...options.headers, ...options.connectionHeaders?.(index) };
    if (!paths) {
      const generator = target as { next(): string };
      return [
        { method: 'GET', headers, setupRequest: (request) => ({ ...request, path: generator.next() }) },
      ];
    }
    const start = index % paths.length;
    return [...paths.slice(start), ...paths.slice(0, start)].map((path) => ({
      method: 'GET',
      path,
      headers,
    }));
  };
  const perConnection = !paths || paths.length > 1 || options.connectionHeaders !== undefined;
  return {
    url: `${baseUrl}${paths?.[0] ?? '/'}`,
    connections,
    pipelining: 1,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.connectionRate ? { connectionRate: options.connectionRate } : {}),
    ...(perConnection
      ? {
          requests: requestsOf(0),
          setupClient: (client: autocannon.Client) => {
            client.setRequests(requestsOf(connection++));
          },
        }
      : {}),
  };
}

/** What a run reads of autocannon's result (all of it plain data, so it crosses threads). */
export type LoadResult = Pick<autocannon.Result, 'errors' | 'non2xx' | 'timeouts' | 'statusCodeStats'> & {
  requests: Pick<autocannon.Result['requests'], 'total' | 'average'>;
  latency: Pick<autocannon.Result['latency'], 'p50' | 'p99'>;
};

export function toRun(result: LoadResult, connections: number, cpuSeconds: number): Run {
  const requests = result.requests.total;
  const statuses = new Map<number, number>();
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {}))
    statuses.set(Number(status), count ?? 0);
  return {
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests,
    errors: result.errors + result.non2xx + result.timeouts,
    statuses,
    socketErrors: result.errors,
    cpuMsPerRequest: requests > 0 ? (cpuSeconds * 1000) / requests : Number.NaN,
  };
}

/**
 * Runs' raw results (encoded histograms, from another thread or `skipAggregateResult`) as one:
 * autocannon exports it; its type declarations do not.
 */
export const { aggregateResult: aggregate } = autocannon as unknown as {
  aggregateResult(raws: unknown[], options: autocannon.Options): autocannon.Result;
};

/** One run kept raw, so that several can be pooled into one latency distribution ({@link pooled}). */
export interface RawRun {
  raw: unknown;
  seconds: number;
  cpuSeconds: number;
}

/** Several raw runs as one: percentiles over all their answers, counts summed. */
export function pooled(server: BenchServer, target: Target, connections: number, runs: RawRun[]): Run {
  const result = aggregate(
    runs.map((run) => run.raw),
    loadOptions(server.baseUrl, target, connections),
  );
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const cpuSeconds = runs.reduce((sum, run) => sum + run.cpuSeconds, 0);
  return toRun(
    {
      ...result,
      // Pooled results carry no per-second samples: the rate is the answers over the runs' time.
      requests: { total: result.requests.total, average: seconds > 0 ? result.requests.total / seconds : 0 },
    },
    connections,
    cpuSeconds,
  );
}

/**
 * Drives `target` on `server` with `connections` keep-alive connections for `seconds`,
 * reading the server's CPU time from /proc before and after.
 */
export async function measure(server: BenchServer, target: Target, connections: number, seconds: number) {
  const cpuBefore = server.cpuSeconds();
  const result = await autocannon({ ...loadOptions(server.baseUrl, target, connections), duration: seconds });
  return toRun(result, connections, server.cpuSeconds() - cpuBefore);
}

/** A short untimed run: JIT, prepared statements on every pooled connection, caches. */
export async function warm(server: BenchServer, target: Target, seconds: number): Promise<void> {
  if (seconds > 0) await autocannon({ ...loadOptions(server.baseUrl, target, 16), duration: seconds });
}

/** The `q` quantile (0..1) of ascending `sorted` values, 0 when there are none. */
export const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
