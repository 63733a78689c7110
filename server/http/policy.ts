import { TRPC_MAX_BATCH } from '../../shared/api/limits';
import type { RateLimitBucket } from './rate-limit';

/** Where a request goes once the front lets it through. */
export type Transport = 'rest' | 'trpc' | 'objects' | 'stream' | 'system' | 'devnet-rpc' | 'page' | 'asset';

/** How the answers of a transport look when the front itself must refuse a request. */
export type ErrorShape = 'envelope' | 'trpc';

export type Method = 'GET' | 'HEAD' | 'POST';

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
  writeBucket?: Exclude<RateLimitBucket, 'reads'>;
  /** Held for the request's lifetime and capped per client. */
  concurrency?: 'uploads' | 'streams';
  errors: ErrorShape;
  /** Refused with 400 once counted (a tRPC batch over the maximum): cheaper than any handler. */
  refuse?: string;
}

const read = (transport: Transport, errors: ErrorShape = 'envelope'): RequestPolicy => ({
  transport,
  methods: ['GET', 'HEAD'],
  takesBody: false,
  readCost: 1,
  errors,
});

/** The files of public/ (scripts/icons.ts): static, cached, never counted against a client. */
const publicFiles = new Set([
  '/favicon.ico',
  '/icon.svg',
  '/apple-touch-icon.png',
  '/icon-192.png',
  '/icon-512.png',
  '/manifest.webmanifest',
]);

/** Paths of the API that Next.js serves itself (everything else under /api/ is unknown). */
const nextApiPaths = new Set([
  '/api/v1/stream',
  '/api/v1/openapi.json',
  '/api/health',
  '/api/ready',
  '/api/metrics',
]);

/** The REST routes as the front needs them: what the routes at a path are declared to be. */
export interface RestRouteLookup {
  /** Every declared route whose template matches the (raw) path; none for an unknown path. */
  routesAt(pathname: string): readonly { method: 'GET' | 'POST'; rateLimit?: 'uploads' | 'finalize' }[];
}

/**
 * The policy of a request, from its method and decoded path only (never the Host header).
 * Undefined: an unknown path under /api/ (REST paths included) or /objects (a JSON 404, not the
 * HTML not-found page).
 */
export function requestPolicy(
  method: string,
  target: { path: string; decoded: string },
  search: URLSearchParams,
  rest: RestRouteLookup,
): RequestPolicy | undefined {
  // Classified (and tRPC calls counted) on the decoded path, as Next.js and tRPC read it: a batch
  // spelled with %2C is as many calls as one spelled with commas.
  const pathname = target.decoded;
  if (pathname.startsWith('/_next/static/') || publicFiles.has(pathname))
    return { ...read('asset'), readCost: 0 };
  if (pathname === '/api/v1/stream') return { ...read('stream'), methods: ['GET'], concurrency: 'streams' };
  if (pathname.startsWith('/api/trpc/')) {
    const calls = search.get('batch') === '1' ? pathname.slice('/api/trpc/'.length).split(',').length : 1;
    // An oversized batch costs one request: the front refuses it without reaching tRPC.
    return {
      ...read('trpc', 'trpc'),
      methods: ['GET'],
      readCost: calls <= TRPC_MAX_BATCH ? calls : 1,
      ...(calls > TRPC_MAX_BATCH
        ? { refuse: `Batch call exceeds maximum size (${TRPC_MAX_BATCH} calls)` }
        : {}),
    };
  }
  if (pathname === '/api/devnet/rpc') return { ...read('devnet-rpc'), methods: ['POST'], takesBody: true };
  if (nextApiPaths.has(pathname)) return read('system');
  if (pathname.startsWith('/api/v1/')) {
    const routes = rest.routesAt(target.path);
    if (routes.length === 0) return undefined;
    // The methods the path's templates declare (HEAD with GET): any other method is a 405 here,
    // before its body is looked at, so a POST to a read is refused as a method, not as a body.
    const methods: Method[] = [];
    if (routes.some((r) => r.method === 'GET')) methods.push('GET', 'HEAD');
    if (routes.some((r) => r.method === 'POST')) methods.push('POST');
    const route = routes.find((r) => r.method === (method === 'HEAD' ? 'GET' : method));
    return {
      ...read('rest'),
      methods,
      takesBody: route?.method === 'POST',
      ...(route?.rateLimit ? { writeBucket: route.rateLimit } : {}),
      ...(route?.rateLimit === 'uploads' ? { concurrency: 'uploads' as const } : {}),
    };
  }
  if (pathname === '/api' || pathname.startsWith('/api/')) return undefined;
  if (pathname.startsWith('/objects/')) return read('objects');
  if (pathname === '/objects') return undefined;
  return read('page');
}
