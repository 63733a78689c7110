import type { IncomingMessage, ServerResponse } from 'node:http';
import { getConfig } from '../../config';
import { getDatabase } from '../../db';
import { getReadDatabases, type ReadDatabases } from '../../db/read-databases';
import { createReadVersion, type ReadVersion } from '../../db/read-version';
import { AppError } from '../../errors';
import { getLogger } from '../../logger';
import { registerMetricProbes } from '../../observability/process-metrics';
import { recordRequest, requestIdFrom } from '../../observability/request-log';
import { createRequestContext } from '../context';
import { cursorBlock } from '../cursor';
import { CLIENT_HEADER, databaseTurn } from '../database-share';
import { highestBlock, MIN_BLOCK_HEADER, parseMinBlock } from '../min-block';
import { createCaller } from '../root';
import type { Context } from '../trpc';
import { jsonAnswer, type RestAnswer, readAnswer, serializeRead, toJson, withBlock } from './answers';
import type { RestRoute, RouteServices } from './define';
import { toAppError } from './errors';
import { collectInput, createRouteMatcher, type RouteMatch, type RouteMatcher } from './match';
import { type CacheOutcome, createReadCache, type ReadCache, type ReadCacheStats } from './read-cache';

export { jsonResponse, matchesIfNoneMatch, type RestAnswer, toJson } from './answers';

function errorAnswer(error: unknown): RestAnswer {
  const { appError, unexpected } = toAppError(error);
  if (unexpected) getLogger().error({ err: error }, 'unexpected error in REST handler');
  return jsonAnswer(appError.status, appError.toBody(), { 'cache-control': 'no-store', ...appError.headers });
}

/** The answer as a web Response (no body for HEAD). */
function toResponse(answer: RestAnswer, method = 'GET'): Response {
  const body = method === 'HEAD' || answer.body === null ? null : new Uint8Array(answer.body);
  return new Response(body, { status: answer.status, headers: answer.headers });
}

export function errorResponse(error: unknown): Response {
  return toResponse(errorAnswer(error));
}

/** One REST request, whichever transport carried it. */
interface AnswerRequest {
  method: string;
  /** Raw (percent-encoded) path. */
  pathname: string;
  query: URLSearchParams;
  ifNoneMatch: string | null;
  /** The caller's X-Request-Id, kept when it is a sane token. */
  requestId: string | null;
  /** X-Min-Indexed-Block as sent (validated with `min_block`). */
  minBlock?: string | readonly string[] | null | undefined;
  /** The front's client key; absent: the request shares one anonymous database share. */
  client?: string | undefined;
  /** Reads a write's body; absent where the transport has none to give (GET and HEAD). */
  readBody?: (route: RestRoute) => Promise<unknown>;
  /** The path's routes as the front matched them; matched here when absent (tests, `next dev`). */
  matches?: readonly RouteMatch[] | undefined;
}

/** A GET or HEAD as the node front has parsed it: the canonical raw path and the query. */
export interface ReadTarget {
  path: string;
  search: string;
  /** `search` as the front already parsed it. */
  query?: URLSearchParams;
  /** The client as the front identified it (its rate-limit key): whose database share a miss takes. */
  client?: string;
  /** The path's routes as the front matched them (once per request); matched here when absent. */
  matches?: readonly RouteMatch[] | undefined;
}

/**
 * How a read was answered: from memory (`hit`), by waiting for another request's computation of
 * the same answer (`joined`), from the database (`miss`; `uncached` with the cache off), or not at
 * all (`none`: an error before the database, a write, an unknown route).
 */
export type ReadOutcome = CacheOutcome | 'uncached' | 'none';

export interface RestDispatcher extends RouteMatcher {
  /**
   * Any REST request, as a web Request (writes through the front, tests); `matches` as the front
   * matched the path, or matched here.
   */
  handle(request: Request, matches?: readonly RouteMatch[]): Promise<Response>;
  /**
   * A GET or HEAD straight from node:http to the socket: no web Request or Response is built, the
   * cached bytes of an answer are written as they are.
   */
  serveRead(incoming: IncomingMessage, outgoing: ServerResponse, target: ReadTarget): Promise<ReadOutcome>;
}

export interface RestDispatcherOptions {
  /** The request context; tests inject their own here. Default: the process's. */
  context?: () => Promise<Context>;
  /**
   * Serves repeated reads from memory while the read-model version of the caller's database is
   * unchanged. Default: on (READ_CACHE_MB) with the default caller, off with an injected one.
   */
  reads?: () => Promise<{ version: ReadVersion; cache: ReadCache } | undefined>;
  /**
   * The databases reads are routed over (primary and replicas). Default: the process's with the
   * default caller; none (every read on the injected context's database) with an injected one.
   */
  databases?: () => Promise<ReadDatabases | undefined>;
}

const readsSlot = {} as {
  reads?: Promise<{ version: ReadVersion; cache: ReadCache } | undefined>;
  readStats?: () => (ReadCacheStats & { bytes: number; entries: number }) | undefined;
};

/** The process's read cache over the configured database (one per process). */
function processReads() {
  readsSlot.reads ??= (async () => {
    const config = getConfig();
    if (config.readCacheBytes === 0) return undefined;
    const { db } = await getDatabase(config);
    const cache = createReadCache(config.readCacheBytes);
    readsSlot.readStats = () => ({ ...cache.stats, bytes: cache.bytes, entries: cache.entries });
    registerMetricProbes({ readCache: processReadCacheStats });
    return { version: createReadVersion(db), cache };
  })();
  return readsSlot.reads;
}

/** Counts of the process's read cache (metrics), once it exists. */
export function processReadCacheStats(): (ReadCacheStats & { bytes: number; entries: number }) | undefined {
  return readsSlot.readStats?.();
}

/**
 * Routes a request to the declared route whose template matches its path: unknown paths are a
 * JSON 404 and known paths with another method a 405, never an HTML page.
 */
export function createRestDispatcher(
  routes: readonly RestRoute[],
  options: RestDispatcherOptions = {},
): RestDispatcher {
  const matcher = createRouteMatcher(routes);
  // The request context holds only process-wide services, so one context (and one caller over
  // it) serves every request; a failed start is not kept, so a later request retries.
  const context = options.context ?? once(() => createRequestContext());
  const services: RouteServices = {
    context,
    caller: once(async () => createCaller(await context())),
  };
  const reads = options.reads ?? (options.context ? async () => undefined : processReads);
  const databases =
    options.databases ?? (options.context ? async () => undefined : () => getReadDatabases(getConfig()));
  /** Reads on one database: the process's context with that database, one caller over it. */
  const routedServices = new Map<string, RouteServices>();
  const servicesOn = (name: string, db: Context['db']): RouteServices => {
    let found = routedServices.get(name);
    if (!found) {
      const own = once(async () => {
        const { reads: _routing, ...base } = await context();
        return { ...base, db };
      });
      found = { context: own, caller: once(async () => createCaller(await own())) };
      routedServices.set(name, found);
    }
    return found;
  };
  /** A write runs as its client (the upload's storage budget is per client): a caller of its own. */
  const writeServices = (client: string | undefined): RouteServices => {
    if (client === undefined) return services;
    const own = async () => ({ ...(await context()), client });
    return { context: own, caller: async () => createCaller(await own()) };
  };
  const methodOf = (method: string) => (method === 'HEAD' ? 'GET' : method);

  /**
   * The answer to one request, with its access log line and latency observation (under the
   * matched route template) and an `X-Request-Id`; never throws (a failure is its error answer).
   */
  async function observedAnswer(request: AnswerRequest): Promise<RestAnswer & { outcome: ReadOutcome }> {
    const started = performance.now();
    const requestId = requestIdFrom(request.requestId);
    const matched = { template: 'unmatched' };
    const result = await answer(request, matched);
    recordRequest(requestId, request.method, matched.template, result.status, started);
    // Every answer's headers are a fresh object (readAnswer, jsonAnswer, errorAnswer): no copy.
    result.headers['x-request-id'] = requestId;
    return result;
  }

  async function answer(
    { method, pathname, query, ifNoneMatch, readBody, client, matches, minBlock }: AnswerRequest,
    matched: { template: string },
  ): Promise<RestAnswer & { outcome: ReadOutcome }> {
    let outcome: ReadOutcome = 'none';
    try {
      const candidates = matches ?? matcher.match(pathname);
      if (candidates.length === 0) throw new AppError('not_found', `no route ${pathname}`);
      const match = candidates.find((c) => c.route.method === methodOf(method));
      if (!match) {
        // As the HTTP front states it (server/http/policy.ts): a read is served to HEAD too.
        const allow = [
          ...new Set(candidates.flatMap((c) => (c.route.method === 'GET' ? ['GET', 'HEAD'] : ['POST']))),
        ].join(', ');
        throw new AppError('method_not_allowed', `${method} is not allowed here; use ${allow}`, undefined, {
          allow,
        });
      }
      const route = match.route;
      matched.template = route.path;
      const input = collectInput(match, query);
      if (route.method !== 'GET') {
        if (!readBody) throw new Error(`${route.path} takes a body: serve it through handle()`);
        if (route.readBody) input.body = await readBody(route);
        const result = await route.run(writeServices(client), route.parse(input));
        return {
          ...jsonAnswer(route.successStatus ?? 200, result, { 'cache-control': 'no-store' }),
          outcome,
        };
      }
      const parsed = route.parse(input);
      const asked = parseMinBlock(minBlock, query);
      const turn = () => databaseTurn(client);
      const [cached, routing] = await Promise.all([reads(), databases()]);
      // A cursor carries the block of the page that issued it: the walk never goes back.
      const seen = routing?.replicated ? highestBlock(asked, cursorBlock(query.get('cursor'))) : asked;
      const onDatabase = async (name: string, db: Context['db'] | undefined): Promise<RestAnswer> => {
        const routeServices = db ? servicesOn(name, db) : services;
        const database = routing?.replicated
          ? async () => db ?? (await routeServices.context()).db
          : undefined;
        if (!cached) {
          outcome = 'uncached';
          const release = await turn();
          try {
            const result = serializeRead(await route.run(routeServices, parsed), 0n);
            return readAnswer(ifNoneMatch, await withBlock(result, database));
          } finally {
            release();
          }
        }
        // The version is read before the data, on the same database, so an answer is at least as
        // new as its version; the cache never serves or keeps an answer for an older version than
        // it holds, so a lagging replica's answer never replaces a newer one.
        const version = await (routing ? routing.version(name) : cached.version).current();
        // Keyed by the parsed input: address case, parameter order, defaults and ignored
        // parameters do not make another entry (or another computation) of the same answer.
        const key = `${route.path}\n${toJson(parsed)}`;
        const served = await cached.cache.answer(
          key,
          version,
          async () => {
            // Set before the database answers: a read that fails there (a 404, a timeout) cost it too.
            outcome = 'miss';
            return withBlock(serializeRead(await route.run(routeServices, parsed), version), database);
          },
          turn,
        );
        outcome = served.outcome;
        return readAnswer(ifNoneMatch, served.answer);
      };
      const result = routing
        ? await routing.read(seen, ({ name, db }) => onDatabase(name, db))
        : await onDatabase('primary', undefined);
      return { ...result, outcome };
    } catch (error) {
      return { ...errorAnswer(error), outcome };
    }
  }

  return {
    match: matcher.match,
    async handle(request, matches) {
      const url = new URL(request.url);
      const result = await observedAnswer({
        method: request.method,
        pathname: url.pathname,
        query: url.searchParams,
        ifNoneMatch: request.headers.get('if-none-match'),
        requestId: request.headers.get('x-request-id'),
        minBlock: request.headers.get(MIN_BLOCK_HEADER),
        // Written by the front, which drops a client's own copy of the header.
        client: request.headers.get(CLIENT_HEADER) ?? undefined,
        readBody: async (route) => route.readBody?.(request),
        matches,
      });
      return toResponse(result, request.method);
    },
    async serveRead(incoming, outgoing, target) {
      const method = incoming.method ?? 'GET';
      const { 'if-none-match': ifNoneMatch, 'x-request-id': requestId } = incoming.headers;
      const result = await observedAnswer({
        method,
        pathname: target.path,
        query: target.query ?? new URLSearchParams(target.search),
        ifNoneMatch: ifNoneMatch ?? null,
        requestId: typeof requestId === 'string' ? requestId : null,
        minBlock: incoming.headers[MIN_BLOCK_HEADER],
        client: target.client,
        matches: target.matches,
      });
      if (outgoing.destroyed) return result.outcome;
      const headers: Record<string, string | number> = result.headers;
      if (result.body !== null) headers['content-length'] = result.body.byteLength;
      outgoing.writeHead(result.status, headers);
      outgoing.end(method === 'HEAD' || result.body === null ? undefined : result.body);
      return result.outcome;
    },
  };
}

/** A shared promise of `start()`, dropped if it fails. */
function once<T>(start: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => {
    if (!started) {
      const attempt = start();
      started = attempt;
      attempt.catch(() => {
        if (started === attempt) started = undefined;
      });
    }
    return started;
  };
}
