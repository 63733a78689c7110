import type { Logger } from 'pino';
import type { RestDispatcher } from '../../api/rest/dispatch';
import { AppError } from '../../errors';
import { recordRequest, requestIdFrom } from '../../observability/request-log';
import { type RequestPolicy, requestPolicy } from '../policy';
import type { SendDeadlines } from '../send-deadline';
import { hostPattern, isUrlHost, MAX_TARGET_BYTES, parseTarget } from '../target';
import { allowed, answerOptions, type Exchange, refuse } from './exchange';

const ALLOW_ALL = 'GET, HEAD, POST, OPTIONS';

/**
 * The request line and Host, before anything is counted: a bad Host or target, an unknown path,
 * a method the path does not take or a body where none is taken is answered here (in the
 * transport's error shape once the path names it), as is OPTIONS. Returns the request's policy
 * (what it costs, which transport serves it) when it may go on, undefined when it was answered.
 */
export function requestLine(
  exchange: Exchange,
  rest: RestDispatcher,
  logger: Logger,
  sends: SendDeadlines,
  started: number,
): RequestPolicy | undefined {
  const { incoming, outgoing, method } = exchange;
  const host = incoming.headers.host;
  if (host === undefined ? incoming.httpVersion === '1.1' : host.length > 255 || !hostPattern.test(host))
    return refusedLine(exchange, new AppError('bad_request', 'missing or malformed Host header'));
  if (host !== undefined && !isUrlHost(host))
    return refusedLine(
      exchange,
      new AppError('bad_request', `the Host header is not a valid host: ${JSON.stringify(host)}`),
    );
  const target = incoming.url ?? '/';
  // Known before the target is parsed, so even an unparsable tRPC request is refused as tRPC.
  if (/^(?:https?:\/\/[^/]*)?\/+api\/+trpc\//i.test(target)) exchange.shape = 'trpc';
  if (Buffer.byteLength(target) > MAX_TARGET_BYTES)
    return refusedLine(
      exchange,
      new AppError('uri_too_long', `the request target exceeds ${MAX_TARGET_BYTES} bytes`),
    );
  if (target === '*') {
    if (method !== 'OPTIONS')
      return refusedLine(exchange, new AppError('bad_request', 'the * target is for OPTIONS only'));
    answerOptions(outgoing, ALLOW_ALL);
    return undefined;
  }
  const parsed = parseTarget(target);
  if (typeof parsed === 'string') return refusedLine(exchange, new AppError('bad_request', parsed));
  const search = new URLSearchParams(parsed.search);
  const policy = requestPolicy(method, parsed, search, rest);
  if (!policy) {
    // Answered here rather than by the dispatcher, an unknown API path is still an API request:
    // it gets its X-Request-Id, access log line and latency under the `unmatched` route.
    const header = incoming.headers['x-request-id'];
    const requestId = requestIdFrom(Array.isArray(header) ? header[0] : header);
    refusedLine(exchange, new AppError('not_found', `no route ${parsed.path}`), {
      'x-request-id': requestId,
    });
    recordRequest(logger, requestId, method, 'unmatched', 404, started);
    return undefined;
  }
  exchange.shape = policy.errors;
  exchange.calls = policy.calls;
  // The event stream is meant to last; a reader that stops reading it is dropped by its queue.
  if (policy.concurrency === 'streams') sends.forget(outgoing);
  if (method === 'OPTIONS') {
    answerOptions(outgoing, allowed(policy));
    return undefined;
  }
  if (!(policy.methods as readonly string[]).includes(method)) {
    const allow = allowed(policy);
    return refusedLine(
      exchange,
      new AppError('method_not_allowed', `${method} is not allowed here; use ${allow}`),
      {
        allow,
      },
    );
  }
  if (exchange.hasBody && !policy.takesBody)
    return refusedLine(
      exchange,
      new AppError('payload_too_large', `${method} ${parsed.path} takes no request body`),
    );
  exchange.path = parsed.path;
  exchange.search = parsed.search;
  exchange.query = search;
  exchange.matches = policy.matches;
  return policy;
}

/** Refuses the request (refuse) and ends the request line with no policy: no closure per request. */
function refusedLine(exchange: Exchange, error: AppError, headers?: Record<string, string>): undefined {
  refuse(exchange, error, headers);
  return undefined;
}
