import type { IncomingMessage, ServerResponse } from 'node:http';
import { MIN_BLOCK_HEADER } from '../api/min-block';
import {
  type ReadOutcome,
  type RestDispatcher,
  type RestRequest,
  type RestResult,
  toResponse,
} from '../api/rest/dispatch';
import type { RouteMatch } from '../api/rest/match';
import { policyHeader, type RateLimitDecision, rateLimitField } from './rate-limit';
import { type BodyDeadlines, serveWithWebHandler } from './web-bridge';

/** A REST request as the front has parsed and admitted it. */
export interface RestTarget {
  /** The canonical raw path. */
  path: string;
  search: string;
  query: URLSearchParams;
  /** The client as the front identified it (its rate-limit key): whose database share a miss takes. */
  client: string;
  /** The path's routes as the front matched them (once per request). */
  matches: readonly RouteMatch[] | undefined;
  /** A read's reads-bucket decision: its RateLimit fields go out in the answer's one writeHead. */
  rateLimit: RateLimitDecision | undefined;
}

/**
 * Serves one REST request from node:http through the dispatcher's one input, {@link RestRequest}.
 * A read is answered straight to the socket: no web Request or Response is built, the cached
 * bytes of an answer are written as they are. A write's body streams to its route as a web
 * Request under the front's body deadlines (the multipart reader takes a web stream), and its
 * answer goes out through the same bridge, which deals with a body left unread.
 */
export function serveRest(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  target: RestTarget,
  rest: RestDispatcher,
  deadlines: BodyDeadlines,
  /** Called with how a read was served once it is written (the front charges database misses). */
  served: (outcome: ReadOutcome) => unknown,
): Promise<unknown> {
  const method = incoming.method ?? 'GET';
  const { 'if-none-match': ifNoneMatch, 'x-request-id': requestId } = incoming.headers;
  const request: RestRequest = {
    method,
    path: target.path,
    query: target.query,
    ifNoneMatch: ifNoneMatch ?? null,
    requestId: typeof requestId === 'string' ? requestId : null,
    minBlock: incoming.headers[MIN_BLOCK_HEADER],
    client: target.client,
    matches: target.matches,
  };
  if (method === 'GET' || method === 'HEAD')
    return rest.answer(request).then((result) => {
      writeAnswer(outgoing, result, method, target.rateLimit);
      return served(result.outcome);
    });
  return serveWithWebHandler(
    incoming,
    outgoing,
    `${target.path}${target.search}`,
    async (body) => toResponse(await rest.answer({ ...request, body }), method),
    deadlines,
  ).then(() => served('none'));
}

/**
 * Every header of a read in one writeHead and nothing set on the response before it: node then
 * stores the answer's own header object as it is, where a header set ahead would make it copy
 * every header into a table of its own first (about a tenth of a small read's allocations).
 */
function writeAnswer(
  outgoing: ServerResponse,
  result: RestResult,
  method: string,
  rateLimit: RateLimitDecision | undefined,
): void {
  if (outgoing.destroyed) return;
  const headers: Record<string, string | number> = result.headers;
  if (rateLimit) {
    headers['ratelimit-policy'] = policyHeader(rateLimit);
    headers.ratelimit = rateLimitField(rateLimit);
  }
  if (result.body !== null) headers['content-length'] = result.body.byteLength;
  outgoing.writeHead(result.status, headers);
  outgoing.end(method === 'HEAD' || result.body === null ? undefined : result.body);
}
