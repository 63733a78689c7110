import { createHash } from 'node:crypto';
import { getConfig } from '../../config';
import { AppError } from '../../errors';
import { getLogger } from '../../logger';
import { observeRequest } from '../../observability/request-log';
import { createRequestContext } from '../context';
import { type Caller, createCaller } from '../root';
import { pathParamNames, type RestRoute } from './define';
import { toAppError } from './errors';
import { enforceRateLimit } from './rate-limit';

/** JSON with bigint as decimal text: amounts never pass through a lossy number. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
}

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(toJson(body), { status, headers: { ...jsonHeaders, ...headers } });
}

/**
 * Reads change only when the index advances (or metadata is finalized), so every answer carries
 * a strong ETag of its body, prefixed with indexed_through_block when the body has it, and may be
 * cached for a second; a matching If-None-Match gets 304 without a body.
 */
function cachedJsonResponse(request: Request, result: unknown): Response {
  const body = toJson(result);
  const block =
    typeof result === 'object' && result !== null && 'indexed_through_block' in result
      ? `b${String((result as { indexed_through_block: unknown }).indexed_through_block)}-`
      : '';
  const etag = `"${block}${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  const headers = { ...jsonHeaders, etag, 'cache-control': 'public, max-age=1, stale-while-revalidate=10' };
  if (matchesIfNoneMatch(request, etag)) {
    return new Response(null, { status: 304, headers: { etag, 'cache-control': headers['cache-control'] } });
  }
  return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
}

/** Whether the request's If-None-Match names `etag` (or `*`): the client already has this version. */
export function matchesIfNoneMatch(request: Request, etag: string): boolean {
  const ifNoneMatch = request.headers.get('if-none-match');
  return ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*') ?? false;
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
}

export interface RestDispatcherOptions {
  /** Builds the caller for a request; tests inject their own context here. */
  caller?: () => Promise<Caller>;
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

  return {
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
      const segments = url.pathname.split('/').filter(Boolean);
      // A literal segment beats a parameter: /tokens/newest is not the token "newest".
      const candidates = compiled
        .map((entry) => ({ entry, values: matchSegments(entry.segments, segments) }))
        .filter((m): m is { entry: CompiledRoute; values: Record<string, string> } => m.values !== null)
        .sort((a, b) => b.entry.literals - a.entry.literals);
      if (candidates.length === 0) throw new AppError('not_found', `no route ${url.pathname}`);
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const match = candidates.find((c) => c.entry.route.method === method);
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
      if (route.rateLimit) await enforceRateLimit(request, route.rateLimit, getConfig());
      if (route.readBody) input.body = await route.readBody(request);
      const result = await route.call(await makeCaller(), input);
      if (route.method !== 'GET')
        return jsonResponse(route.successStatus ?? 200, result, { 'cache-control': 'no-store' });
      return cachedJsonResponse(request, result);
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
