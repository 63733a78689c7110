import type { Logger } from 'pino';
import type { ReadDatabases } from '../../db/read-databases';
import type { ReadVersion } from '../../db/read-version';
import { AppError } from '../../errors';
import { recordRequest, requestIdFrom } from '../../observability/request-log';
import type { RouteLatency } from '../../observability/route-latency';
import { cursorBlock } from '../cursor';
import { type DatabaseTurn, type ReleaseTurn, whileHolding } from '../database-share';
import { highestBlock, parseMinBlock } from '../min-block';
import type { Context } from '../trpc';
import {
  jsonAnswer,
  type RestAnswer,
  readAnswer,
  serializeRead,
  toJson,
  webStream,
  withBlock,
} from './answers';
import type { RestRoute, RouteServices } from './define';
import { toAppError } from './errors';
import { createExportSeats, type ExportCharge, type ExportServices, exportAnswer } from './export';
import { asksForCsv } from './export-format';
import { collectInput, createRouteMatcher, type RouteMatch, type RouteMatcher } from './match';
import type { CachedAnswer, CacheOutcome, ReadCache } from './read-cache';

export { jsonResponse, matchesIfNoneMatch, type RestAnswer, toJson } from './answers';

/** The error's answer; an unexpected error (not an AppError) is logged with its stack, answered 500. */
function errorAnswer(error: unknown, logger: Logger): RestAnswer {
  const { appError, unexpected } = toAppError(error);
  if (unexpected) logger.error({ err: error }, 'unexpected error in REST handler');
  return jsonAnswer(appError.status, appError.toBody(), { 'cache-control': 'no-store', ...appError.headers });
}

/** The answer as a web Response (no body for HEAD). */
export function toResponse(answer: RestAnswer, method = 'GET'): Response {
  const body =
    method === 'HEAD'
      ? null
      : answer.stream
        ? webStream(answer.stream)
        : answer.body === null
          ? null
          : new Uint8Array(answer.body);
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
  /** Accept as sent: read only by routes that export CSV (docs/api.md, "CSV exports"). */
  accept?: string | undefined;
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
  /** The process's latency histogram. Absent: answers are logged, their latency not kept. */
  latency?: RouteLatency | undefined;
  /**
   * Serves repeated reads from memory while the read-model version of the caller's database is
   * unchanged. Absent: every read is computed (`uncached`).
   */
  readCache?: ProcessReadCache | undefined;
  /** The databases reads are routed over (primary and replicas). Absent: every read on the context's `db`. */
  databases?: ReadDatabases | undefined;
  /** The process's database shares per client. Absent: reads are not shared out. */
  databaseTurn?: DatabaseTurn | undefined;
  /** Counts a CSV export's rows against its client's reads budget. Absent: exports are not charged. */
  exportCharge?: ExportCharge | undefined;
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
  const requests = { logger, latency: options.latency };
  // The context holds only process-wide services, so one serves every request.
  const services = servicesOver(context);
  /** Reads on one database: the process's context with that database. */
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
  /** A write runs as its client (the upload's storage budget is per client): a context of its own. */
  const writeServices = (client: string | undefined): RouteServices =>
    client === undefined ? services : servicesOver({ ...context, client });
  const methodOf = (method: string) => (method === 'HEAD' ? 'GET' : method);
  const exports: ExportServices = {
    context,
    logger,
    databases: routing,
    turn: (client) => turnOf(client),
    charge: options.exportCharge,
    seats: createExportSeats(context.config.exports.perProcess),
  };

  /**
   * The answer to one request, with its access log line and latency observation (under the
   * matched route template) and an `X-Request-Id`; never rejects (a failure is its error answer).
   *
   * Written with promise callbacks rather than async frames: a read answered from memory makes
   * two promises (the version's and its answer's) where async functions made a dozen, and on
   * Node 20, once Next.js has turned async hooks on, every promise runs them. Nor does it name a
   * closure per request: under tsx every named one costs a property definition (docs/decisions.md).
   */
  function answer(request: RestRequest): Promise<RestResult> {
    const started = performance.now();
    const { method, path: pathname, query, body, client, matches, minBlock } = request;
    const served: Served = {
      outcome: 'none',
      template: 'unmatched',
      requestId: requestIdFrom(request.requestId),
      method,
      started,
      vary: false,
    };
    try {
      const candidates = matches ?? matcher.match(pathname);
      if (candidates.length === 0) throw new AppError('not_found', `no route ${pathname}`);
      const match = candidates.find((c) => c.route.method === methodOf(method));
      if (!match) {
        // As the HTTP front states it (server/http/gate/request-line.ts): a read is served to HEAD too.
        const allow = [
          ...new Set(candidates.flatMap((c) => (c.route.method === 'GET' ? ['GET', 'HEAD'] : ['POST']))),
        ].join(', ');
        throw new AppError('method_not_allowed', `${method} is not allowed here; use ${allow}`, undefined, {
          allow,
        });
      }
      const route = match.route;
      served.template = route.path;
      const input = collectInput(match, query);
      if (route.method !== 'GET')
        return write(route, input, body, client).then(
          (result) => observed(result, served),
          (error: unknown) => failure(error, served),
        );
      const parsed = route.parse(input);
      const asked = parseMinBlock(minBlock, query);
      // A cursor carries the block of the page that issued it: the walk never goes back. A read
      // at a block (`block`) needs a database indexed through it: a lagging replica would refuse it.
      const seen = routing?.replicated
        ? highestBlock(highestBlock(asked, cursorBlock(query.get('cursor'))), atBlock(parsed))
        : asked;
      if (route.csv !== undefined) {
        if (asksForCsv((parsed as { format?: string }).format, request.accept)) {
          // An export walks the list as it stands now; balances at a block have none (docs/api.md).
          if (atBlock(parsed) !== undefined)
            throw new AppError('invalid_parameter', 'block cannot be combined with the CSV export', [
              { field: 'block', message: 'omit block, or ask for JSON (format=json)' },
            ]);
          // Its own latency label: an export's head counts up to EXPORT_MAX_ROWS rows.
          served.template = `${route.path}.csv`;
          served.outcome = 'uncached';
          return exportAnswer(exports, {
            list: route.csv,
            parsed: parsed as { address: string },
            head: method === 'HEAD',
            client,
            seen,
            path: pathname,
            query,
            requestId: served.requestId,
          }).then(
            (result) => observed(result, served),
            (error: unknown) => failure(error, served),
          );
        }
        served.vary = true;
      }
      const plan: ReadPlan = {
        route,
        parsed,
        ifNoneMatch: request.ifNoneMatch,
        client,
        served,
        // Keyed by the parsed input: address case, parameter order, defaults and ignored
        // parameters do not make another entry (or another computation) of the same answer.
        key: cached ? `${route.path}\n${toJson(parsed)}` : '',
      };
      const read = routing
        ? routing.read(seen, (on) => readOn(plan, on.name, on.db))
        : readOn(plan, 'primary', undefined);
      return read.then(
        (result) => observed(result, served),
        (error: unknown) => failure(error, served),
      );
    } catch (error) {
      return Promise.resolve(failure(error, served));
    }
  }

  /** The answer as served: its outcome, its request id, its access log line and latency. */
  function observed(answer: RestAnswer, served: Served): RestResult {
    recordRequest(requests, served.requestId, served.method, served.template, answer.status, served.started);
    // Every answer and its headers are fresh objects (readAnswer, jsonAnswer, errorAnswer): no copy.
    answer.headers['x-request-id'] = served.requestId;
    if (served.vary) answer.headers.vary = 'accept';
    const result = answer as RestResult;
    result.outcome = served.outcome;
    return result;
  }

  function failure(error: unknown, served: Served): RestResult {
    return observed(errorAnswer(error, logger), served);
  }

  /** The client's database share for one read (none when shares are off). */
  function turnOf(client: string | undefined): ReleaseTurn | Promise<ReleaseTurn> {
    return databaseTurn?.(client) ?? noTurn;
  }

  /** One read on the named database: from the cache at that database's version, or computed. */
  function readOn(plan: ReadPlan, name: string, db: Context['db'] | undefined): Promise<RestAnswer> {
    const routeServices = db ? servicesOn(name, db) : services;
    const database = routing?.replicated ? async () => db ?? routeServices.context.db : undefined;
    if (!cached) {
      plan.served.outcome = 'uncached';
      return uncachedRead(plan, routeServices, database, turnOf(plan.client));
    }
    // The version is read before the data, on the same database, so an answer is at least as
    // new as its version; the cache never serves or keeps an answer for an older version than
    // it holds, so a lagging replica's answer never replaces a newer one.
    const version = (routing ? routing.version(name) : cached.version).current();
    return version.then((at) => {
      const answered = cached.cache.answer(
        plan.key,
        at,
        () => computeRead(plan, routeServices, database, at),
        () => turnOf(plan.client),
        name,
      );
      if (answered instanceof Promise)
        return answered.then((late) => {
          plan.served.outcome = late.outcome;
          return readAnswer(plan.ifNoneMatch, late.answer);
        });
      plan.served.outcome = answered.outcome;
      return readAnswer(plan.ifNoneMatch, answered.answer);
    });
  }

  /** A miss of the cache: the route's answer at `version`, serialized once. */
  async function computeRead(
    plan: ReadPlan,
    routeServices: RouteServices,
    database: (() => Promise<Context['db']>) | undefined,
    version: bigint,
  ): Promise<CachedAnswer> {
    // Set before the database answers: a read that fails there (a 404, a timeout) cost it too.
    plan.served.outcome = 'miss';
    return withBlock(serializeRead(await plan.route.run(routeServices, plan.parsed), version), database);
  }

  /** A write runs its route's procedure with the body its route reads. */
  async function write(
    route: RestRoute,
    input: Record<string, unknown>,
    body: Request | undefined,
    client: string | undefined,
  ): Promise<RestAnswer> {
    if (route.readBody) {
      if (!body) throw new Error(`${route.path} takes a body: the transport gave none`);
      input.body = await route.readBody(body);
    }
    const result = await route.run(writeServices(client), route.parse(input));
    return jsonAnswer(route.successStatus ?? 200, result, { 'cache-control': 'no-store' });
  }

  /** A read with the cache off: computed on every request, within the client's database share. */
  async function uncachedRead(
    plan: ReadPlan,
    routeServices: RouteServices,
    database: (() => Promise<Context['db']>) | undefined,
    turn: ReleaseTurn | Promise<ReleaseTurn>,
  ): Promise<RestAnswer> {
    return whileHolding(turn instanceof Promise ? await turn : turn, async () => {
      const result = serializeRead(await plan.route.run(routeServices, plan.parsed), 0n, false);
      const answered = withBlock(result, database);
      return readAnswer(plan.ifNoneMatch, answered instanceof Promise ? await answered : answered);
    });
  }

  return { match: matcher.match, answer };
}

/** One GET as the dispatcher reads it: what it asks, where its answer is cached, how it was served. */
interface ReadPlan {
  route: RestRoute;
  parsed: unknown;
  ifNoneMatch: string | null;
  client: string | undefined;
  /** The cache key; '' with the cache off. */
  key: string;
  served: Served;
}

/** How one request was served, for its access log line, its latency and the front's charge. */
interface Served {
  outcome: ReadOutcome;
  /** The matched route template (`unmatched` until matched). */
  template: string;
  requestId: string;
  method: string;
  started: number;
  /** Its route also exports CSV, chosen by Accept too: its JSON answers say Vary. */
  vary: boolean;
}

/** The block a read's parsed input asks its answer at (balances at a block), if any. */
function atBlock(parsed: unknown): number | undefined {
  const block = (parsed as { block?: unknown }).block;
  return typeof block === 'number' ? block : undefined;
}

/** No share to wait for: the release does nothing. */
const noTurn = () => {};

/** The route services over one context. */
function servicesOver(context: Context): RouteServices {
  return { context };
}
