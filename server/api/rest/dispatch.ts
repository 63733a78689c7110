import { createHash } from 'node:crypto';
import { getConfig } from '../../config';
import { getDatabase } from '../../db';
import { createReadVersion, type ReadVersion } from '../../db/read-version';
import { AppError } from '../../errors';
import { getLogger } from '../../logger';
import { observeRequest } from '../../observability/request-log';
import { createRequestContext } from '../context';
import { type Caller, createCaller } from '../root';
import { pathParamNames, type RestRoute } from './define';
import { toAppError } from './errors';
import { type CachedAnswer, createReadCache, type ReadCache } from './read-cache';

/** JSON with bigint as decimal text: amounts never pass through a lossy number. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
}

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(toJson(body), { status, headers: { ...jsonHeaders, ...headers } });
}

const readCacheControl = 'public, max-age=1, stale-while-revalidate=10';

/**
 * A read's answer, serialized once: reads change only when the read model does (the index
 * advances, metadata is finalized, a token is moderated), so it carries a strong ETag of its body,
 * prefixed with indexed_through_block when the body has it, and may be cached for a second.
 */
function serializeRead(result: unknown, version: bigint): CachedAnswer {
  const body = Buffer.from(toJson(result));
  const block =
    typeof result === 'object' && result !== null && 'indexed_through_block' in result
      ? `b${String((result as { indexed_through_block: unknown }).indexed_through_block)}-`
      : '';
  const etag = `"${block}${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { version, body, etag };
}

/** 200 with the body (none for HEAD), or 304 when If-None-Match names its ETag. */
function readResponse(request: Request, answer: CachedAnswer): Response {
  if (matchesIfNoneMatch(request, answer.etag)) {
    return new Response(null, {
      status: 304,
      headers: { etag: answer.etag, 'cache-control': readCacheControl },
    });
  }
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(answer.body), {
    status: 200,
    headers: { ...jsonHeaders, etag: answer.etag, 'cache-control': readCacheControl },
  });
}

/**
 * Whether the request's If-None-Match names `etag` (or is `*`): the client already has this
 * version. If-None-Match uses the weak comparison of RFC 9110 section 8.8.3.2: `W/"x"` matches
 * `"x"`, since a cache may have weakened the tag it stored.
 */
export function matchesIfNoneMatch(request: Request, etag: string): boolean {
  const header = request.headers.get('if-none-match');
  if (header === null) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const wanted = opaque(etag);
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === wanted);
}

export function errorResponse(error: unknown): Response {
  const { appError, unexpected } = toAppError(error);
  if (unexpected) getLogger().error({ err: error }, 'unexpected error in REST handler');
  return jsonResponse(appError.status, appError.toBody(), {
    'cache-control': 'no-store',
    ...appError.headers,
  });
}

interface CompiledRoute {
  route: RestRoute;
  segments: string[];
  literals: number;
  params: string[];
  queryKeys: string[];
}

export interface RestDispatcher {
  handle(request: Request): Promise<Response>;
  /** The route a method and path reach, if any (the HTTP front reads its rate-limit bucket). */
  routeOf(method: string, pathname: string): RestRoute | undefined;
}

export interface RestDispatcherOptions {
  /** Builds the caller for a request; tests inject their own context here. */
  caller?: () => Promise<Caller>;
  /**
   * Serves repeated reads from memory while the read-model version of the caller's database is
   * unchanged. Default: on (READ_CACHE_MB) with the default caller, off with an injected one.
   */
  reads?: () => Promise<{ version: ReadVersion; cache: ReadCache } | undefined>;
}

const readsSlot = globalThis as typeof globalThis & {
  __launchdexReads?: Promise<{ version: ReadVersion; cache: ReadCache } | undefined>;
};

/** The process's read cache over the configured database (one per process, shared by copies). */
function processReads() {
  readsSlot.__launchdexReads ??= (async () => {
    const config = getConfig();
    if (config.readCacheBytes === 0) return undefined;
    const { db } = await getDatabase(config);
    return { version: createReadVersion(db), cache: createReadCache(config.readCacheBytes) };
  })();
  return readsSlot.__launchdexReads;
}

/**
 * Routes a request to the declared route whose template matches its path: unknown paths are a
 * JSON 404 and known paths with another method a 405, never an HTML page.
 */
export function createRestDispatcher(
  routes: readonly RestRoute[],
  options: RestDispatcherOptions = {},
): RestDispatcher {
  const compiled: CompiledRoute[] = routes.map((route) => {
    const params = pathParamNames(route.path);
    const segments = route.path.split('/').filter(Boolean);
    return {
      route,
      segments,
      literals: segments.filter((segment) => !segment.startsWith('{')).length,
      params,
      queryKeys: Object.keys(route.input.shape).filter((key) => !params.includes(key)),
    };
  });
  const makeCaller = options.caller ?? (async () => createCaller(await createRequestContext()));
  const reads = options.reads ?? (options.caller ? async () => undefined : processReads);

  /** Routes whose template matches `pathname`, literal segments first (/tokens/newest is no address). */
  function candidatesFor(pathname: string) {
    const segments = pathname.split('/').filter(Boolean);
    return compiled
      .map((entry) => ({ entry, values: matchSegments(entry.segments, segments) }))
      .filter((m): m is { entry: CompiledRoute; values: Record<string, string> } => m.values !== null)
      .sort((a, b) => b.entry.literals - a.entry.literals);
  }
  const methodOf = (method: string) => (method === 'HEAD' ? 'GET' : method);

  return {
    routeOf(method, pathname) {
      return candidatesFor(pathname).find((c) => c.entry.route.method === methodOf(method))?.entry.route;
    },
    handle(request) {
      let template = 'unmatched';
      return observeRequest(
        request,
        () => template,
        () =>
          route(request, (matched) => {
            template = matched;
          }),
      );
    },
  };

  async function route(request: Request, onMatch: (template: string) => void): Promise<Response> {
    try {
      const url = new URL(request.url);
      const candidates = candidatesFor(url.pathname);
      if (candidates.length === 0) throw new AppError('not_found', `no route ${url.pathname}`);
      const match = candidates.find((c) => c.entry.route.method === methodOf(request.method));
      if (!match) {
        const allow = [...new Set(candidates.map((c) => c.entry.route.method))].join(', ');
        throw new AppError(
          'method_not_allowed',
          `${request.method} is not allowed here; use ${allow}`,
          undefined,
          { allow },
        );
      }
      const route = match.entry.route;
      onMatch(route.path);
      const input: Record<string, unknown> = collectInput(match.entry, match.values, url.searchParams);
      if (route.readBody) input.body = await route.readBody(request);
      if (route.method !== 'GET') {
        const result = await route.call(await makeCaller(), input);
        return jsonResponse(route.successStatus ?? 200, result, { 'cache-control': 'no-store' });
      }
      const cached = await reads();
      if (!cached)
        return readResponse(request, serializeRead(await route.call(await makeCaller(), input), 0n));
      // The version is read before the data, so an answer is at least as new as its version.
      const version = await cached.version.current();
      const key = `${route.path}\n${JSON.stringify(input)}`;
      const hit = cached.cache.get(key, version);
      if (hit) return readResponse(request, hit);
      const answer = serializeRead(await route.call(await makeCaller(), input), version);
      cached.cache.set(key, answer);
      return readResponse(request, answer);
    } catch (error) {
      return errorResponse(error);
    }
  }
}

function matchSegments(template: string[], actual: string[]): Record<string, string> | null {
  if (template.length !== actual.length) return null;
  const values: Record<string, string> = {};
  for (const [index, part] of template.entries()) {
    const given = actual[index] as string;
    if (part.startsWith('{') && part.endsWith('}')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(given);
      } catch {
        return null;
      }
      values[part.slice(1, -1)] = decoded;
    } else if (part !== given) {
      return null;
    }
  }
  return values;
}

/**
 * Known query parameters only (unknown ones are ignored, DESIGN.md section 7); a known one given
 * twice is ambiguous and rejected rather than silently picked.
 */
function collectInput(entry: CompiledRoute, pathValues: Record<string, string>, query: URLSearchParams) {
  const input: Record<string, string> = { ...pathValues };
  for (const key of entry.queryKeys) {
    const values = query.getAll(key);
    if (values.length > 1) {
      throw new AppError('invalid_parameter', `${key} must be given at most once`, [
        { field: key, message: 'given more than once' },
      ]);
    }
    if (values.length === 1) input[key] = values[0] as string;
  }
  return input;
}
