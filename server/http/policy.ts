import { TRPC_MAX_BATCH } from '../../shared/api/limits';
import type { RestRoute, WriteBucket } from '../api/rest/define';
import type { RouteMatch, RouteMatcher } from '../api/rest/match';
import { publicFiles, routes, type SystemPath, systemPaths } from '../routes';

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
  if (pathname === routes.stream) return { ...read('stream'), methods: ['GET'], concurrency: 'streams' };
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
