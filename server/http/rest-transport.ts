import type { IncomingMessage, ServerResponse } from 'node:http';
import { MIN_BLOCK_HEADER } from '../api/min-block';
import type { StreamedBody } from '../api/rest/answers';
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
  /** The answer is meant to outlast the send deadline (a CSV export, bounded by its own). */
  lasting?(): void;
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
  const { 'if-none-match': ifNoneMatch, 'x-request-id': requestId, accept } = incoming.headers;
  const request: RestRequest = {
    method,
    path: target.path,
    query: target.query,
    ifNoneMatch: ifNoneMatch ?? null,
    requestId: typeof requestId === 'string' ? requestId : null,
    minBlock: incoming.headers[MIN_BLOCK_HEADER],
    accept,
    client: target.client,
    matches: target.matches,
  };
  if (method === 'GET' || method === 'HEAD')
    return rest.answer(request).then((result) => {
      if (result.stream) return writeStreamed(outgoing, result, target).then(() => served(result.outcome));
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
 * A body written as it is produced (a CSV export): each piece is asked for once the previous one
 * is written or drained, so the answer holds one piece at a time however slowly the client reads.
 * A body cut after its head (its deadline, a failed statement) destroys the connection: the
 * answer then lacks HTTP's last chunk, and the client sees an incomplete transfer.
 */
async function writeStreamed(
  outgoing: ServerResponse,
  result: RestResult,
  target: RestTarget,
): Promise<void> {
  const body = result.stream as StreamedBody;
  const gone = () => body.cancel();
  outgoing.once('close', gone);
  if (outgoing.destroyed) return body.cancel();
  target.lasting?.();
  const headers: Record<string, string> = result.headers;
  if (target.rateLimit) {
    headers['ratelimit-policy'] = policyHeader(target.rateLimit);
    headers.ratelimit = rateLimitField(target.rateLimit);
  }
  outgoing.writeHead(result.status, headers);
  try {
    for (;;) {
      const piece = await body.next();
      if (outgoing.destroyed) return body.cancel();
      if (piece === null) {
        outgoing.end();
        return;
      }
      if (!outgoing.write(piece)) await drained(outgoing, body.signal);
      if (body.signal.aborted) throw body.signal.reason;
    }
  } catch {
    outgoing.destroy();
  } finally {
    outgoing.off('close', gone);
  }
}

/** Once `outgoing` has drained its buffer, closed, or `signal` stopped the body. */
function drained(outgoing: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    outgoing.on('drain', done);
    outgoing.on('close', done);
    signal.addEventListener('abort', done);
  });
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
