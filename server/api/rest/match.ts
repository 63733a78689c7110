import { AppError } from '../../errors';
import { pathParamNames, type RestRoute } from './define';

interface CompiledRoute {
  route: RestRoute;
  segments: string[];
  /** Per segment, the path parameter it holds (undefined: a literal segment). */
  names: (string | undefined)[];
  literals: number;
  params: string[];
  queryKeys: string[];
}

/** A declared route whose template matches a request's path, with the path's values. */
export interface RouteMatch {
  readonly route: RestRoute;
  readonly values: Record<string, string>;
  /** Query parameters the route reads (its input's keys that are not in the path). */
  readonly queryKeys: readonly string[];
}

export interface RouteMatcher {
  /**
   * Every route whose template matches a raw (percent-encoded) path, whatever its method, literal
   * segments first; none for an unknown path. Called once per request: by the front, which
   * answers 404 and 405 from it and hands the matches on to the dispatcher.
   */
  match(pathname: string): RouteMatch[];
}

/**
 * The REST routes compiled for matching: grouped by segment count, literal segments first
 * (/tokens/newest is no address), literals compared before any value is decoded.
 */
export function createRouteMatcher(routes: readonly RestRoute[]): RouteMatcher {
  const compiled: CompiledRoute[] = routes
    .map((route) => {
      const params = pathParamNames(route.path);
      const segments = route.path.split('/').filter(Boolean);
      return {
        route,
        segments,
        names: segments.map((segment) => (segment.startsWith('{') ? segment.slice(1, -1) : undefined)),
        literals: segments.filter((segment) => !segment.startsWith('{')).length,
        params,
        queryKeys: Object.keys(route.input.shape).filter((key) => !params.includes(key)),
      };
    })
    .sort((a, b) => b.literals - a.literals);
  const bySegmentCount = new Map<number, CompiledRoute[]>();
  for (const entry of compiled)
    bySegmentCount.set(entry.segments.length, [...(bySegmentCount.get(entry.segments.length) ?? []), entry]);
  return {
    match(pathname) {
      const segments = pathname.split('/').filter(Boolean);
      const matches: RouteMatch[] = [];
      for (const entry of bySegmentCount.get(segments.length) ?? []) {
        const values = matchSegments(entry, segments);
        if (values) matches.push({ route: entry.route, values, queryKeys: entry.queryKeys });
      }
      return matches;
    },
  };
}

function matchSegments(
  { segments: template, names }: CompiledRoute,
  actual: string[],
): Record<string, string> | null {
  if (template.length !== actual.length) return null;
  // Literal segments first: most templates of the same length fail there, before any decoding.
  for (let index = 0; index < template.length; index++) {
    if (names[index] === undefined && template[index] !== actual[index]) return null;
  }
  const values: Record<string, string> = {};
  for (let index = 0; index < template.length; index++) {
    const name = names[index];
    if (name === undefined) continue;
    const given = actual[index] as string;
    if (!given.includes('%')) {
      values[name] = given;
      continue;
    }
    try {
      values[name] = decodeURIComponent(given);
    } catch {
      return null;
    }
  }
  return values;
}

/**
 * A matched route's input: its path values and its known query parameters only (unknown ones
 * are ignored, DESIGN.md section 7); a known one given twice is ambiguous and rejected rather
 * than silently picked.
 */
export function collectInput(match: RouteMatch, query: URLSearchParams): Record<string, unknown> {
  const input: Record<string, unknown> = { ...match.values };
  for (const key of match.queryKeys) {
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
