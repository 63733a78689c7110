import { TRPC_MAX_BATCH } from '../../../shared/api/limits';
import type { RestRoute, WriteBucket } from '../../api/rest/define';
import type { RestDispatcher } from '../../api/rest/dispatch';
import type { RouteMatch, RouteMatcher } from '../../api/rest/match';
import { AppError } from '../../errors';
import { type RequestLog, recordRequest, requestIdFrom } from '../../observability/request-log';
import { publicFiles, routes, type SystemPath, systemPaths } from '../../routes';
import type { SendDeadlines } from './connection';
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
  requests: RequestLog,
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
    recordRequest(requests, requestId, method, 'unmatched', 404, started);
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

// The request target and Host as the front accepts them, before any routing.

/** `host[:port]` of RFC 9110 (reg-name or IP literal); anything else is not a Host. */
export const hostPattern = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]*)(?::[0-9]{0,5})?$/;
/**
 * Whether the WHATWG URL parser (the one Next.js and every web API use) accepts `host` as an
 * authority. RFC 9110's grammar admits names it refuses (`1.1.1.256`, `xn--a`, ports past 65535,
 * an empty Host), and a Host Next cannot parse fails deep in its request handling as a 500.
 */
export function isUrlHost(host: string): boolean {
  if (host === '') return false;
  // A server sees a handful of Host values all day: each is parsed once, not per request.
  let known = judgedHosts.get(host);
  if (known === undefined) {
    try {
      known = new URL(`http://${host}/`).host !== '';
    } catch {
      known = false;
    }
    // A client sending a new Host per request only ever refills a small map.
    if (judgedHosts.size >= MAX_JUDGED_HOSTS) judgedHosts.clear();
    judgedHosts.set(host, known);
  }
  return known;
}
const judgedHosts = new Map<string, boolean>();
const MAX_JUDGED_HOSTS = 256;
/** Longest request target (path and query) the front accepts: 414 past it. */
export const MAX_TARGET_BYTES = 8_192;

/**
 * The path of a request target, or why it is refused (origin-form, absolute-form). `path` is the
 * canonical raw spelling handed on (repeated slashes folded, no trailing slash), `decoded` the
 * same path percent-decoded: what routing and call counting look at, as tRPC and Next.js do.
 */
export function parseTarget(target: string): { path: string; decoded: string; search: string } | string {
  let raw = target;
  if (!raw.startsWith('/')) {
    try {
      const url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'unsupported request target';
      raw = `${url.pathname}${url.search}`;
    } catch {
      return 'malformed request target';
    }
  }
  const queryAt = raw.indexOf('?');
  const rawPath = queryAt >= 0 ? raw.slice(0, queryAt) : raw;
  const search = queryAt >= 0 ? raw.slice(queryAt) : '';
  // One spelling per path: Next.js and this front must route the same bytes the same way, and
  // Next's trailing-slash redirect (which repeats the whole target twice in its head) never runs.
  let path = rawPath.includes('//') ? rawPath.replace(/\/{2,}/g, '/') : rawPath;
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (/%2f|%5c|\\/i.test(path)) return 'encoded slashes are not allowed in paths';
  let decoded = path;
  if (path.includes('%'))
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return 'the path is not valid percent-encoded UTF-8';
    }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return 'the path contains control characters';
  if (decoded.includes('/.') && decoded.split('/').some((segment) => segment === '.' || segment === '..'))
    return 'dot segments are not allowed in paths';
  return { path, decoded, search };
}

// What the front enforces per request, by path.

/** Where a request goes once the front lets it through. */
export type Transport = 'rest' | 'trpc' | 'objects' | 'stream' | 'system' | 'devnet-rpc' | 'page' | 'asset';

/** How the answers of a transport look when the front itself must refuse a request. */
export type ErrorShape = 'envelope' | 'trpc';

export type Method = 'GET' | 'HEAD' | 'POST';

/** A refused tRPC request: which calls it carried, so a batch gets one error per call. */
export interface TrpcCalls {
  paths: string[];
  batch: boolean;
}

/**
 * What the front enforces for one request before any handler runs: the same gate for every
 * transport, so no transport is a way around another's limits (docs/security.md).
 */
export interface RequestPolicy {
  transport: Transport;
  /** Methods the path answers; OPTIONS is answered by the front from this list. */
  methods: readonly Method[];
  /** Whether the path takes a request body (only REST writes and the devnet RPC do). */
  takesBody: boolean;
  /** Requests counted in the reads bucket: a tRPC batch counts each call. 0 for static assets. */
  readCost: number;
  /** A second bucket for writes, as declared by the REST route. */
  writeBucket?: WriteBucket;
  /** Held for the request's lifetime and capped per client. */
  concurrency?: 'uploads' | 'streams';
  errors: ErrorShape;
  /** Refused with 400 once counted (a tRPC batch over the maximum): cheaper than any handler. */
  refuse?: string;
  /** REST: the routes at the path, matched here once and handed on to the dispatcher. */
  matches?: readonly RouteMatch[];
  /** tRPC: the calls the path names, split here once (counted, and named in refusals). */
  calls?: TrpcCalls;
}

const read = (transport: Transport, errors: ErrorShape = 'envelope'): RequestPolicy => ({
  transport,
  methods: ['GET', 'HEAD'],
  takesBody: false,
  readCost: 1,
  errors,
});

const systemPathSet: ReadonlySet<string> = new Set<SystemPath>(systemPaths);

/**
 * The policy of a request, from its method and decoded path only (never the Host header).
 * Undefined: an unknown path under /api/ (REST paths included) or /objects (a JSON 404, not the
 * HTML not-found page).
 */
export function requestPolicy(
  method: string,
  target: { path: string; decoded: string },
  search: URLSearchParams,
  rest: RouteMatcher,
): RequestPolicy | undefined {
  // Classified (and tRPC calls counted) on the decoded path, as Next.js and tRPC read it: a batch
  // spelled with %2C is as many calls as one spelled with commas.
  const pathname = target.decoded;
  if (pathname.startsWith(routes.assetsPrefix) || publicFiles.has(pathname))
    return { ...read('asset'), readCost: 0 };
  if (pathname === routes.stream) return { ...read('stream'), concurrency: 'streams' };
  if (pathname.startsWith(routes.trpcPrefix)) {
    const batch = search.get('batch') === '1';
    const names = pathname.slice(routes.trpcPrefix.length);
    const paths = batch ? names.split(',') : [names];
    const calls = paths.length;
    // An oversized batch costs one request: the front refuses it without reaching tRPC.
    return {
      ...read('trpc', 'trpc'),
      methods: ['GET'],
      readCost: calls <= TRPC_MAX_BATCH ? calls : 1,
      calls: { paths: calls > 100 ? paths.slice(0, 100) : paths, batch },
      ...(calls > TRPC_MAX_BATCH
        ? { refuse: `Batch call exceeds maximum size (${TRPC_MAX_BATCH} calls)` }
        : {}),
    };
  }
  if (pathname === routes.devnetRpc) return { ...read('devnet-rpc'), methods: ['POST'], takesBody: true };
  if (systemPathSet.has(pathname)) return read('system');
  if (pathname.startsWith(routes.restPrefix)) {
    const matches = rest.match(target.path);
    if (matches.length === 0) return undefined;
    const route = matches.find((m) => m.route.method === (method === 'HEAD' ? 'GET' : method))?.route;
    // Most paths match one template: its policy is built once per template and method.
    const base =
      matches.length === 1
        ? templatePolicy((matches[0] as RouteMatch).route, route !== undefined)
        : restPolicy(
            matches.map((m) => m.route),
            route,
          );
    return withMatches(base, matches);
  }
  if (pathname === '/api' || pathname.startsWith('/api/')) return undefined;
  if (pathname.startsWith(routes.objectsPrefix)) return read('objects');
  if (pathname === '/objects') return undefined;
  return read('page');
}

/**
 * A template's policy with one request's matches: every field written out, so that every REST
 * request's policy is one small object of one shape (a spread copied it into a slower, larger one).
 */
function withMatches(base: RequestPolicy, matches: readonly RouteMatch[]): RequestPolicy {
  return {
    transport: base.transport,
    methods: base.methods,
    takesBody: base.takesBody,
    readCost: base.readCost,
    writeBucket: base.writeBucket,
    concurrency: base.concurrency,
    errors: base.errors,
    refuse: base.refuse,
    matches,
    calls: base.calls,
  };
}

/**
 * A REST path's policy but its matches, per template that alone matches a path: asked with the
 * method it answers, or with another (a 405 or OPTIONS).
 */
const templatePolicies = new WeakMap<RestRoute, { answered?: RequestPolicy; other?: RequestPolicy }>();

function templatePolicy(template: RestRoute, answered: boolean): RequestPolicy {
  let known = templatePolicies.get(template);
  if (!known) {
    known = {};
    templatePolicies.set(template, known);
  }
  if (answered) {
    known.answered ??= restPolicy([template], template);
    return known.answered;
  }
  known.other ??= restPolicy([template], undefined);
  return known.other;
}

/** The policy of a REST path its `templates` match, asked with the method `route` answers (if any). */
function restPolicy(templates: readonly RestRoute[], route: RestRoute | undefined): RequestPolicy {
  // The methods the path's templates declare (HEAD with GET): any other method is a 405 here,
  // before its body is looked at, so a POST to a read is refused as a method, not as a body.
  const methods: Method[] = [];
  if (templates.some((t) => t.method === 'GET')) methods.push('GET', 'HEAD');
  if (templates.some((t) => t.method === 'POST')) methods.push('POST');
  return {
    ...read('rest'),
    methods,
    takesBody: route?.method === 'POST',
    ...(route?.rateLimit ? { writeBucket: route.rateLimit } : {}),
    ...(route?.rateLimit === 'uploads' ? { concurrency: 'uploads' as const } : {}),
  };
}
