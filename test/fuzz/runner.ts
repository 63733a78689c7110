import fc from 'fast-check';
import type { Corpus } from './corpus';
import { answerNotes, checkAnswer } from './oracle';
import type { FuzzRequest } from './request';
import { restReadRequest, restWriteRequest, streamRequest } from './rest-requests';
import { sendRequest } from './send';
import { objectRequest, pageRequest, systemRequest } from './site-requests';
import { createStats, type FuzzStats, formatSummary, recordAnswer } from './stats';
import { operationsOf, type RestOperation, type TrpcProcedure, trpcProcedures } from './targets';
import { trpcBatchRequest, trpcMalformedRequest, trpcMutationRequest, trpcQueryRequest } from './trpc';

/**
 * Server settings for fuzzing: limits out of the fuzzer's reach, so it tests validation rather
 * than the limiter (a 429 is still allowed, in its envelope); and a 384 MB old-generation cap.
 * Without it V8 lets garbage pile up to ~470 MB of heap before its first full collection (live
 * data stays ~190 MB), so RSS growth would measure V8's heap sizing, not what the server keeps;
 * with it, memory a request leaves behind shows as growth, or as an out-of-memory crash.
 */
export const FUZZ_SERVER_ENV: Record<string, string> = {
  RATE_LIMIT_READS_PER_MINUTE: '1000000',
  RATE_LIMIT_READS_BURST: '100000',
  RATE_LIMIT_UPLOADS_PER_MINUTE: '100000',
  RATE_LIMIT_FINALIZE_PER_MINUTE: '100000',
  STREAMS_PER_CLIENT: '64',
  NODE_OPTIONS: '--max-old-space-size=384',
};

/** The server's RSS may grow at most this much over a run. */
export const RSS_GROWTH_LIMIT_BYTES = 100 * 1024 * 1024;

/** One property: requests of one route or procedure (or one kind of abuse), each checked. */
export interface FuzzProperty {
  name: string;
  arbitrary: fc.Arbitrary<FuzzRequest>;
}

/**
 * The properties of a server: one per operation of its OpenAPI document, one per tRPC query
 * procedure, and batches, mutations over HTTP, malformed tRPC input, objects, system routes and
 * pages.
 */
export function fuzzProperties(
  operations: readonly RestOperation[],
  procedures: readonly TrpcProcedure[],
  corpus: Corpus,
): FuzzProperty[] {
  const properties: FuzzProperty[] = [];
  for (const operation of operations) {
    const name = `${operation.method} ${operation.path}`;
    if (operation.path === '/api/v1/stream')
      properties.push({ name, arbitrary: streamRequest(operation, corpus) });
    else if (operation.method === 'GET')
      properties.push({ name, arbitrary: restReadRequest(operation, corpus) });
    else properties.push({ name, arbitrary: restWriteRequest(operation, corpus) });
  }
  for (const procedure of procedures.filter((p) => p.type === 'query'))
    properties.push({ name: `tRPC ${procedure.path}`, arbitrary: trpcQueryRequest(procedure, corpus) });
  properties.push(
    { name: 'tRPC batch', arbitrary: trpcBatchRequest(procedures, corpus) },
    { name: 'tRPC writes over HTTP', arbitrary: trpcMutationRequest(corpus) },
    { name: 'tRPC malformed input', arbitrary: trpcMalformedRequest(procedures) },
    { name: 'objects', arbitrary: objectRequest(corpus) },
    { name: 'system', arbitrary: systemRequest() },
    { name: 'pages', arbitrary: pageRequest(corpus) },
  );
  return properties;
}

export interface FuzzOptions {
  baseUrl: string;
  /** Fetches from distinct loopback client addresses; requests take turns. */
  clients: readonly (typeof fetch)[];
  corpus: Corpus;
  /** Runs per property. */
  runs: number;
  seed: number;
  /** Only the properties whose name contains one of these. */
  only?: readonly string[];
  residentBytes?: () => number;
  log?: (line: string) => void;
}

export interface FuzzReport {
  stats: FuzzStats;
  properties: string[];
  /** One message per failed property: fast-check's seed, path and shrunk request, and why. */
  failures: string[];
  summary: string[];
}

/** Fetches the served OpenAPI document and returns its operations. */
export async function servedOperations(baseUrl: string, fetcher: typeof fetch): Promise<RestOperation[]> {
  const answer = await fetcher(`${baseUrl}/api/v1/openapi.json`);
  if (answer.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${answer.status}`);
  return operationsOf((await answer.json()) as Parameters<typeof operationsOf>[0]);
}

/**
 * One of each kind of page and call before memory is first measured: the first render of a
 * page loads its code, which is start-up, not growth.
 */
async function warmUp({ baseUrl, clients, corpus }: FuzzOptions): Promise<void> {
  const fetcher = clients[0] as typeof fetch;
  const targets = [
    '/',
    `/tokens/${corpus.tokens[0]}`,
    `/creators/${corpus.creators[0]}`,
    `/wallets/${corpus.wallets[0] ?? corpus.creators[0]}`,
    '/tokens/0x0',
    '/api/trpc/system.status',
    '/api/ready',
    `/objects/${corpus.objectKeys[0]}`,
  ];
  for (const target of targets) await (await fetcher(`${baseUrl}${target}`)).arrayBuffer();
}

/** Runs per property of the warm-up pass, checked like the rest, before RSS is first measured. */
const WARM_UP_RUNS = 10;

/**
 * Runs every property against a live server, `runs` requests each, from a fixed seed; keeps
 * going past a failed property so one run reports every failure. RSS is first measured after a
 * warm-up pass ({@link WARM_UP_RUNS} of each property: first use of each code path and V8's
 * heap reaching its working size are start-up, not growth); the run fails when it then grew
 * more than {@link RSS_GROWTH_LIMIT_BYTES}.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const log = options.log ?? (() => {});
  const stats = createStats();
  const operations = await servedOperations(options.baseUrl, options.clients[0] as typeof fetch);
  const all = fuzzProperties(operations, trpcProcedures(), options.corpus);
  const properties = options.only ? all.filter((p) => options.only?.some((o) => p.name.includes(o))) : all;
  const rss = () => options.residentBytes?.() ?? 0;
  const failures: string[] = [];
  let turn = 0;
  let slowest = 0;

  const check = async (request: FuzzRequest) => {
    const client = options.clients[turn++ % options.clients.length] as typeof fetch;
    const answer = await sendRequest(client, options.baseUrl, request);
    recordAnswer(stats, request, answer, answerNotes(request, answer));
    slowest = Math.max(slowest, answer.ms);
    if (stats.requests % 10 === 0) stats.rss.max = Math.max(stats.rss.max, rss());
    const problems = checkAnswer(request, answer);
    if (problems.length > 0) {
      const error = new Error(
        `${problems.join('; ')}\n  answer: ${answer.status} ${answer.body.slice(0, 400)}`,
      );
      error.stack = error.message; // where the check threw says nothing about the server
      throw error;
    }
  };
  /** One property, `runs` times from `seed`: fast-check's report (seed, path, shrunk request) on failure. */
  const runProperty = async (property: FuzzProperty, runs: number, seed: number) => {
    try {
      await fc.assert(fc.asyncProperty(property.arbitrary, check), {
        numRuns: runs,
        seed,
        includeErrorInReport: true,
      });
      return true;
    } catch (error) {
      const replay = `npm run fuzz -- --seed ${seed} --runs ${runs} --only '${property.name}'`;
      failures.push(`✗ ${property.name}\n${(error as Error).message}\n  replay: ${replay}`);
      return false;
    }
  };

  await warmUp(options);
  for (const property of properties)
    await runProperty(property, Math.min(WARM_UP_RUNS, options.runs), options.seed + 1);
  stats.warmUpRequests = stats.requests;
  stats.rss.start = stats.rss.max = rss();
  log(`warm-up: ${stats.requests} requests; server RSS ${(stats.rss.start / 1024 / 1024).toFixed(0)} MB`);

  for (const [index, property] of properties.entries()) {
    const before = stats.requests;
    const started = performance.now();
    slowest = 0;
    const passed = await runProperty(property, options.runs, options.seed);
    const rssNow = rss();
    stats.rss.max = Math.max(stats.rss.max, rssNow);
    log(
      `[${index + 1}/${properties.length}] ${property.name}: ${stats.requests - before} requests in ${((performance.now() - started) / 1000).toFixed(1)} s, slowest ${slowest.toFixed(0)} ms, RSS ${(rssNow / 1024 / 1024).toFixed(0)} MB${passed ? '' : ' — FAILED'}`,
    );
  }
  stats.rss.end = rss();
  stats.rss.max = Math.max(stats.rss.max, stats.rss.end);
  stats.durationMs = Date.now() - stats.startedAt;
  if (options.residentBytes && stats.rss.max - stats.rss.start > RSS_GROWTH_LIMIT_BYTES)
    failures.push(
      `✗ server RSS grew ${((stats.rss.max - stats.rss.start) / 1024 / 1024).toFixed(0)} MB (limit ${RSS_GROWTH_LIMIT_BYTES / 1024 / 1024} MB)`,
    );
  return {
    stats,
    properties: properties.map((p) => p.name),
    failures,
    summary: formatSummary(stats, failures),
  };
}
