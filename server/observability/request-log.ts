import { randomUUID } from 'node:crypto';
import { getLogger } from '../logger';
import { statusClass } from './metrics';
import { getProcessMetrics } from './process-metrics';

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token (a proxy's trace id), else a fresh one. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given && requestIdPattern.test(given) ? given : randomUUID();
}

/**
 * Runs one API request with its JSON access log line, its latency in the route histogram and an
 * `X-Request-Id` on the response. `route` is the matched template (`/api/v1/tokens/{address}`),
 * never the raw path, so labels stay bounded; it is read after the handler ran.
 */
export async function observeRequest(
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
    getLogger().error({ err: error, requestId }, 'unhandled error');
    response = Response.json(
      { error: { code: 'internal', message: 'Internal error' } },
      { status: 500, headers: { 'cache-control': 'no-store' } },
    );
  }
  const seconds = (performance.now() - started) / 1000;
  const template = route();
  getProcessMetrics().httpDuration.observe(
    { method: request.method, route: template, status: statusClass(response.status) },
    seconds,
  );
  getLogger().info(
    {
      requestId,
      method: request.method,
      route: template,
      status: response.status,
      ms: Math.round(seconds * 10_000) / 10,
    },
    'request',
  );
  try {
    response.headers.set('x-request-id', requestId);
  } catch {
    // Responses with immutable headers (rare: proxied fetch responses) go out without the id.
  }
  return response;
}
