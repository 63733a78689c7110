import type { Logger } from 'pino';
import type { ReadDatabases } from '../../db/read-databases';
import type { ReadVersion } from '../../db/read-version';
import { AppError } from '../../errors';
import { recordRequest, requestIdFrom } from '../../observability/request-log';
import { cursorBlock } from '../cursor';
import type { DatabaseTurn } from '../database-share';
import { highestBlock, parseMinBlock } from '../min-block';
import { createCaller } from '../root';
import type { Context } from '../trpc';
import { jsonAnswer, type RestAnswer, readAnswer, serializeRead, toJson, withBlock } from './answers';
import type { RestRoute, RouteServices } from './define';
import { toAppError } from './errors';
import { collectInput, createRouteMatcher, type RouteMatch, type RouteMatcher } from './match';
import type { CacheOutcome, ReadCache } from './read-cache';

export { jsonResponse, matchesIfNoneMatch, type RestAnswer, toJson } from './answers';

/** The error's answer; an unexpected error (not an AppError) is logged with its stack, answered 500. */
function errorAnswer(error: unknown, logger: Logger): RestAnswer {
  const { appError, unexpected } = toAppError(error);
  if (unexpected) logger.error({ err: error }, 'unexpected error in REST handler');
  return jsonAnswer(appError.status, appError.toBody(), { 'cache-control': 'no-store', ...appError.headers });
}

/** The answer as a web Response (no body for HEAD). */
export function toResponse(answer: RestAnswer, method = 'GET'): Response {
  const body = method === 'HEAD' || answer.body === null ? null : new Uint8Array(answer.body);
  return new Response(body, { status: answer.status, headers: answer.headers });
}

/**
 * An error in the API's envelope as a web Response (the transports' and the pages' error answers).
 * An AppError is answered as it says; anything else may be unexpected, so it takes the logger its
 * stack is logged to.
 */
export function errorResponse(error: AppError): Response;
export function errorResponse(error: unknown, logger: Logger): Response;
export function errorResponse(error: unknown, logger?: Logger): Response {
  const { appError, unexpected } = toAppError(error);
  if (unexpected) logger?.error({ err: error }, 'unexpected error in REST handler');
  return toResponse(
    jsonAnswer(appError.status, appError.toBody(), { 'cache-control': 'no-store', ...appError.headers }),
  );
}

/**
 * One REST request, whichever transport carried it: the one input of the dispatcher. The HTTP
 * front builds it from node:http (server/http/rest-request.ts); tests and benchmarks from a web
 * Request (`restRequestOf` in ./web-request.ts). Headers are read by the transport, so the
 * dispatcher never sees node's or the web's header types.
 */
export interface RestRequest {
  method: string;
  /** Raw (percent-encoded) path. */
  path: string;
  query: URLSearchParams;
  ifNoneMatch: string | null;
  /** The caller's X-Request-Id, kept when it is a sane token. */
  requestId: string | null;
  /** X-Min-Indexed-Block as sent (validated with `min_block`). */
  minBlock?: string | readonly string[] | null | undefined;
  /** The front's client key; absent: the request shares one anonymous database share. */
  client?: string | undefined;
  /**
   * A write's body, as a web Request whose stream the route's body reader consumes (the front's
   * carries its body deadlines). Absent for GET and HEAD; a write without it is a 500.
   */
  body?: Request | undefined;
  /** The path's routes as the front matched them (once per request); matched here when absent. */
  matches?: readonly RouteMatch[] | undefined;
}

/**
 * How a read was answered: from memory (`hit`), by waiting for another request's computation of
 * the same answer (`joined`), from the database (`miss`; `uncached` with the cache off), or not at
 * all (`none`: an error before the database, a write, an unknown route).
 */
export type ReadOutcome = CacheOutcome | 'uncached' | 'none';

/** A request's answer (with its `X-Request-Id`) and how a read was served (the front charges misses). */
export type RestResult = RestAnswer & { outcome: ReadOutcome };

export interface RestDispatcher extends RouteMatcher {
  /** Answers one request; never throws (a failure is its error answer). HEAD gets GET's answer. */
  answer(request: RestRequest): Promise<RestResult>;
}

/** The read cache of a process: answers by read-model version (READ_CACHE_MB). */
export interface ProcessReadCache {
  version: ReadVersion;
  cache: ReadCache;
}

export interface RestDispatcherOptions {
  /** The procedures' context: the process's, or a test's. */
  context: Context;
  logger: Logger;
  /**
   * Serves repeated reads from memory while the read-model version of the caller's database is
   * unchanged. Absent: every read is computed (`uncached`).
   */
  readCache?: ProcessReadCache | undefined;
  /** The databases reads are routed over (primary and replicas). Absent: every read on the context's `db`. */
  databases?: ReadDatabases | undefined;
  /** The process's database shares per client. Absent: reads are not shared out. */
  databaseTurn?: DatabaseTurn | undefined;
}

/**
 * Routes a request to the declared route whose template matches its path: unknown paths are a
 * JSON 404 and known paths with another method a 405, never an HTML page.
 */
export function createRestDispatcher(
  routes: readonly RestRoute[],
  options: RestDispatcherOptions,
): RestDispatcher {
  const matcher = createRouteMatcher(routes);
  const { context, logger, readCache: cached, databases: routing, databaseTurn } = options;
  // The context holds only process-wide services, so one caller over it serves every request.
  const services = servicesOver(context);
  /** Reads on one database: the process's context with that database, one caller over it. */
  const routedServices = new Map<string, RouteServices>();
  const servicesOn = (name: string, db: Context['db']): RouteServices => {
    let found = routedServices.get(name);
    if (!found) {
      const { reads: _routing, ...base } = context;
      found = servicesOver({ ...base, db });
      routedServices.set(name, found);
    }
    return found;
  };
  /** A write runs as its client (the upload's storage budget is per client): a caller of its own. */
  const writeServices = (client: string | undefined): RouteServices =>
    client === undefined ? services : servicesOver({ ...context, client });
  const methodOf = (method: string) => (method === 'HEAD' ? 'GET' : method);

  /**
   * The answer to one request, with its access log line and latency observation (under the
   * matched route template) and an `X-Request-Id`; never throws (a failure is its error answer).
   */
  async function observedAnswer(request: RestRequest): Promise<RestResult> {
    const started = performance.now();
    const requestId = requestIdFrom(request.requestId);
    const matched = { template: 'unmatched' };
    const result = await answer(request, matched);
    recordRequest(logger, requestId, request.method, matched.template, result.status, started);
    // Every answer's headers are a fresh object (readAnswer, jsonAnswer, errorAnswer): no copy.
    result.headers['x-request-id'] = requestId;
    return result;
  }

  async function answer(
    { method, path: pathname, query, ifNoneMatch, body, client, matches, minBlock }: RestRequest,
    matched: { template: string },
  ): Promise<RestResult> {
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
        if (route.readBody) {
          if (!body) throw new Error(`${route.path} takes a body: the transport gave none`);
          input.body = await route.readBody(body);
        }
        const result = await route.run(writeServices(client), route.parse(input));
        return {
          ...jsonAnswer(route.successStatus ?? 200, result, { 'cache-control': 'no-store' }),
          outcome,
        };
      }
      const parsed = route.parse(input);
      const asked = parseMinBlock(minBlock, query);
      const turn = () => databaseTurn?.(client) ?? noTurn;
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
      return { ...errorAnswer(error, logger), outcome };
    }
  }

  return { match: matcher.match, answer: observedAnswer };
}

/** No share to wait for: the release does nothing. */
const noTurn = () => {};

/** The route services over one context: the context and one caller over it. */
function servicesOver(context: Context): RouteServices {
  const caller = createCaller(context);
  return { context: async () => context, caller: async () => caller };
}
