import { timingSafeEqual } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Logger } from 'pino';
import packageJson from '../../package.json' with { type: 'json' };
import { TRPC_MAX_BATCH } from '../../shared/api/limits';
import { streamQuery } from '../../shared/api/stream';
import { INDEXED_BLOCK_HEADER, MIN_BLOCK_HEADER, parseMinBlock } from '../api/min-block';
import { errorResponse } from '../api/rest/dispatch';
import { buildOpenApiDocument } from '../api/rest/openapi';
import { restRoutes } from '../api/rest/registry';
import { appRouter } from '../api/root';
import type { Context } from '../api/trpc';
import { proxyDevnetRpc } from '../chain/devnet-rpc-proxy';
import type { Config } from '../config';
import type { DatabaseHandle } from '../db';
import type { ReadDatabases } from '../db/read-databases';
import type { ReplicaHealth } from '../db/replicas';
import { AppError } from '../errors';
import { checkHealth, checkReadiness } from '../health';
import { serveObject } from '../objects/serve';
import type { ObjectStore } from '../objects/store';
import type { ChainHead } from '../observability/chain-head';
import type { MetricsScrape } from '../observability/cluster-metrics';
import { observeRequest } from '../observability/request-log';
import type { RouteLatency } from '../observability/route-latency';
import { routes, type SystemPath } from '../routes';
import { resumePoint, retryDirective } from '../stream/encode';
import type { StreamHub } from '../stream/hub';

/** A transport's handler: `client` is the key the front's gate identified the request's client by. */
type WebHandler = (request: Request, client?: string) => Promise<Response>;

/** Every transport the front serves besides REST and pages, as web handlers. */
export interface WebHandlers {
  trpc: WebHandler;
  objects: WebHandler;
  stream: WebHandler;
  /** /api/health, /api/ready, /api/metrics, /api/v1/openapi.json. */
  system: WebHandler;
  'devnet-rpc': WebHandler;
}

/** The OpenAPI document of /api/v1, built once: it depends on the code only. */
export function openApiDocument() {
  cachedDocument ??= buildOpenApiDocument(restRoutes, { version: packageJson.version });
  return cachedDocument;
}
let cachedDocument: ReturnType<typeof buildOpenApiDocument> | undefined;

/**
 * The handlers of the process's non-page transports, over its services. They were route files of
 * Next.js before the front served them (docs/architecture.md): answers are unchanged.
 */
export function createWebHandlers(services: {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  reads: ReadDatabases;
  hub: StreamHub;
  objects: ObjectStore;
  context: Context;
  chainHead: ChainHead;
  latency: RouteLatency;
  scrapeMetrics: MetricsScrape;
}): WebHandlers {
  const { config, logger, reads, hub, objects, context, latency, scrapeMetrics } = services;
  const requests = { logger, latency };
  const system: Record<SystemPath, WebHandler> = {
    // Liveness: 200 while the process serves (docs/operations.md, load balancers).
    '/api/health': async () =>
      Response.json(await checkHealth(services), { headers: { 'cache-control': 'no-store' } }),
    '/api/ready': async () => {
      // A replica out of rotation does not make the instance unready: the primary serves its reads.
      const replicas = reads.health();
      const readiness = await checkReadiness(services, replicas);
      return Response.json(
        { ...readiness, replicas: replicas.map(replicaReadiness) },
        {
          status: readiness.status === 'unready' ? 503 : 200,
          headers: { 'cache-control': 'no-store' },
        },
      );
    },
    '/api/metrics': (request) => metrics(request, config.metricsToken, scrapeMetrics),
    '/api/v1/openapi.json': async () =>
      Response.json(openApiDocument(), { headers: { 'cache-control': 'public, max-age=300' } }),
  };
  return {
    // One histogram series for tRPC: procedure paths come from the client and would be unbounded labels.
    trpc: (request, client) =>
      observeRequest(
        requests,
        request,
        () => '/api/trpc',
        () =>
          fetchRequestHandler({
            endpoint: '/api/trpc',
            req: request,
            router: appRouter,
            // The process's context, as an outside caller (over HTTP) and as the front's client.
            createContext: async (): Promise<Context> => {
              const minBlock = minBlockOf(request);
              return {
                ...context,
                transport: 'http',
                ...(client === undefined ? {} : { client }),
                ...(minBlock === undefined ? {} : { minBlock }),
                answered: { block: undefined },
              };
            },
            responseMeta: ({ ctx }) => {
              const block = ctx?.answered?.block;
              return block === undefined
                ? {}
                : { headers: new Headers({ [INDEXED_BLOCK_HEADER]: String(block) }) };
            },
            maxBatchSize: TRPC_MAX_BATCH,
            onError: ({ error, path }) => {
              if (error.code === 'INTERNAL_SERVER_ERROR')
                logger.error({ err: error.cause ?? error, path }, 'tRPC error');
            },
          }),
      ),
    // The key is the one path segment after /objects/; anything with more segments is not a key.
    objects: (request) =>
      observeRequest(
        requests,
        request,
        () => '/objects/{key}',
        async () => {
          const key = new URL(request.url).pathname.slice(routes.objectsPrefix.length);
          return serveObject(request, key.includes('/') ? '' : decodeURIComponent(key), objects);
        },
      ),
    stream: (request) =>
      observeRequest(
        requests,
        request,
        () => routes.stream,
        () => streamResponse(request, hub, logger),
      ),
    system: (request) => {
      const path = new URL(request.url).pathname;
      const handler = Object.hasOwn(system, path) ? system[path as SystemPath] : undefined;
      return handler
        ? handler(request)
        : Promise.resolve(errorResponse(new AppError('not_found', 'no route')));
    },
    'devnet-rpc': (request) => proxyDevnetRpc(request, { config, logger }),
  };
}

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * Server-sent events of launches, trades and graduations as the index advances (docs/api.md,
 * "Live stream"). `token=` narrows to one token; Last-Event-ID (or `since=`) resumes.
 */
async function streamResponse(request: Request, hub: StreamHub, logger: Logger): Promise<Response> {
  try {
    const query = parseStreamQuery(new URL(request.url).searchParams);
    // HEAD: what a GET would answer, without subscribing (no replay, no body).
    if (request.method === 'HEAD') return new Response(null, { headers: STREAM_HEADERS });
    const subscriber = await hub.subscribe({
      token: query.token,
      resumeFrom: resumePoint(request.headers.get('last-event-id'), query.since),
      // The hub closes the subscriber (and frees its slot) when the client goes, even mid-replay.
      signal: request.signal,
    });
    if (!subscriber)
      throw new AppError(
        'unavailable',
        'too many live connections on this instance; retry shortly',
        undefined,
        {
          'retry-after': '5',
        },
      );
    subscriber.sendRaw(retryDirective(3_000));
    return new Response(subscriber.stream, { headers: STREAM_HEADERS });
  } catch (error) {
    return errorResponse(error, logger);
  }
}

/** The query as the REST routes read theirs: a known parameter given twice is a 400, not a guess. */
function parseStreamQuery(search: URLSearchParams) {
  const input: Record<string, string> = {};
  for (const key of Object.keys(streamQuery.shape)) {
    const values = search.getAll(key);
    if (values.length > 1)
      throw new AppError('invalid_parameter', `${key} must be given at most once`, [
        { field: key, message: 'given more than once' },
      ]);
    if (values[0] !== undefined) input[key] = values[0];
  }
  return streamQuery.parse(input);
}

/** The client's high-water block; a bad value is a 400 as on REST. */
function minBlockOf(request: Request): number | undefined {
  try {
    return parseMinBlock(request.headers.get(MIN_BLOCK_HEADER));
  } catch (error) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: error instanceof Error ? error.message : 'bad X-Min-Indexed-Block',
      cause: error,
    });
  }
}

/** A replica as /api/ready reports it. */
function replicaReadiness(replica: ReplicaHealth) {
  return {
    name: replica.name,
    healthy: replica.healthy,
    reason: replica.reason,
    indexed_through_block: replica.position?.block ?? null,
    lag_blocks: replica.lagBlocks,
    reads: replica.reads,
  };
}

function bearerMatches(header: string | null, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Prometheus text exposition of the server: this process, or with `--workers N` every worker
 * aggregated (the `launchdex-metrics-workers` header says how many answered). Not public: it
 * exists only when METRICS_TOKEN is set, and then answers only to `Authorization: Bearer <token>`
 * (docs/security.md).
 */
async function metrics(
  request: Request,
  token: string | undefined,
  scrapeMetrics: MetricsScrape,
): Promise<Response> {
  if (!token) return errorResponse(new AppError('not_found', 'no route /api/metrics'));
  if (!bearerMatches(request.headers.get('authorization'), token))
    return errorResponse(
      new AppError('unauthorized', 'metrics need Authorization: Bearer <METRICS_TOKEN>', undefined, {
        'www-authenticate': 'Bearer realm="metrics"',
      }),
    );
  const { text, contentType, workers } = await scrapeMetrics();
  return new Response(text, {
    headers: {
      'content-type': contentType,
      'cache-control': 'no-store',
      'launchdex-metrics-workers': String(workers),
    },
  });
}
