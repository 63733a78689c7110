import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RouteLatency } from './route-latency';

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token (a proxy's trace id), else a fresh one. */
export function requestIdFrom(given: string | null | undefined): string {
  return given && requestIdPattern.test(given) ? given : freshRequestId();
}

/**
 * Ids are only told apart, never guessed at or trusted: a random UUID's first 20 hex digits (74
 * random bits), drawn once per process (and again when the counter runs out), then a counter in
 * the last 12. Still UUID-shaped, unique across processes and restarts, and one short string per
 * request where a random UUID is built of twenty.
 */
const requestIds = { prefix: '', next: 0 };
const REQUEST_ID_SPAN = 2 ** 48;

function freshRequestId(): string {
  if (requestIds.prefix === '' || requestIds.next >= REQUEST_ID_SPAN) {
    requestIds.prefix = randomUUID().slice(0, 24);
    requestIds.next = 0;
  }
  const count = requestIds.next++;
  return requestIds.prefix + (REQUEST_ID_SPAN + count).toString(16).slice(1);
}

export function requestIdOf(request: Request): string {
  return requestIdFrom(request.headers.get('x-request-id'));
}

/** Where finished API requests are recorded: the process's logger and latency histogram. */
export interface RequestLog {
  logger: Logger;
  /** Absent (a test's dispatcher): the line is written, the latency not kept. */
  latency?: RouteLatency | undefined;
}

/**
 * Records one finished API request: its JSON access log line and its latency in the route
 * histogram. `route` is the matched template (`/api/v1/tokens/{address}`), never the raw path, so
 * labels stay bounded.
 */
export function recordRequest(
  { logger, latency }: RequestLog,
  requestId: string,
  method: string,
  route: string,
  status: number,
  startedAt: number,
): void {
  const seconds = (performance.now() - startedAt) / 1000;
  latency?.observe(method, route, status, seconds);
  // The line is built only when it is written: at LOG_LEVEL=warn a read costs no log object.
  if (logger.isLevelEnabled('info'))
    logger.info({ requestId, method, route, status, ms: Math.round(seconds * 10_000) / 10 }, 'request');
}

/**
 * Runs one API request with its access log line, its latency observation and an `X-Request-Id`
 * on the response. `route` is read after the handler ran.
 */
export async function observeRequest(
  log: RequestLog,
  request: Request,
  route: () => string,
  handle: () => Promise<Response>,
): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdOf(request);
  let response: Response;
  try {
    response = await handle();
  } catch (error) {
    log.logger.error({ err: error, requestId }, 'unhandled error');
    response = Response.json(
      { error: { code: 'internal', message: 'Internal error' } },
      { status: 500, headers: { 'cache-control': 'no-store' } },
    );
  }
  recordRequest(log, requestId, request.method, route(), response.status, started);
  try {
    response.headers.set('x-request-id', requestId);
  } catch {
    // Responses with immutable headers (rare: proxied fetch responses) go out without the id.
  }
  return response;
}
