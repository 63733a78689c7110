import type { z } from 'zod';
import type { ErrorCode } from '../../errors';
import { type Context, publicProcedure } from '../trpc';
import type { ListExport } from './export';
import { formatParam } from './export-format';
import { type SerializedAnswer, structured } from './serialized';

/** The bucket a write is counted in besides the reads (docs/security.md lists the limits). */
export type WriteBucket = 'uploads' | 'finalize';

/** What a route runs against: the request context. */
export interface RouteServices {
  /** Process-wide: there when the dispatcher is, so no request waits for it. */
  readonly context: Context;
}

/** Cache policy of a read: derived from indexed_through_block by the handler that declares it. */
export interface RestRoute {
  method: 'GET' | 'POST';
  /** OpenAPI path template: `/api/v1/tokens/{address}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The procedure's input schema; `{name}` segments of `path` fill keys of the same name. */
  input: z.ZodObject;
  output: z.ZodType;
  /** Error codes this route can answer with, besides `internal`. */
  errors: ErrorCode[];
  /** Status of a successful answer (201 for creations). */
  successStatus?: number;
  /** The write bucket the HTTP front counts this route's requests in, besides reads. */
  rateLimit?: WriteBucket;
  /** Reads the request body (streaming, with its own limits) into `input.body`. */
  readBody?: (request: Request) => Promise<unknown>;
  /** The body as documented in OpenAPI. */
  requestBody?: { contentType: string; schema: Record<string, unknown> };
  /**
   * The request's raw strings (path and query) as the route's input: parsed by its schema for a
   * read (a 400 on bad input), passed on as they are for a write (its procedure parses them).
   * Equal parsed inputs get equal answers, so a read's cache key is its parsed input.
   */
  parse(input: Record<string, unknown>): unknown;
  /** Runs the route with a parsed input. */
  run(services: RouteServices, parsed: unknown): Promise<unknown>;
  /**
   * The read's whole list as CSV, for `format=csv` or `Accept: text/csv` (./export.ts); `input`
   * then declares `format`.
   */
  csv?: ListExport;
}

/**
 * What a route declares besides how it runs. Its name (`operationId`) and tag come from its group
 * ({@link routeGroup}); a read is a GET.
 */
interface Declared<Input extends z.ZodObject, Output extends z.ZodType> {
  path: string;
  summary: string;
  description?: string;
  input: Input;
  output: Output;
  errors: ErrorCode[];
  successStatus?: number;
  rateLimit?: RestRoute['rateLimit'];
  readBody?: RestRoute['readBody'];
  requestBody?: RestRoute['requestBody'];
  csv?: ListExport;
}

/** A declared route before its group names it. */
type Unnamed<Route extends RestRoute> = Omit<Route, 'operationId' | 'tags'>;

/** A read's function: it may answer with JSON text written by the database (a SerializedAnswer). */
type Read<Input extends z.ZodObject, Output extends z.ZodType> = (
  ctx: Context,
  input: z.output<Input>,
) => Promise<z.output<Output> | SerializedAnswer>;

/** A write's function, given the input (the body read into `body`) parsed by the route's schema. */
type Write<Input extends z.ZodObject, Output extends z.ZodType> = (
  ctx: Context,
  input: z.output<Input>,
) => Promise<z.output<Output>>;

/** A read's tRPC query: the same input schema and function, the answer typed by the output schema. */
function readProcedure<Input extends z.ZodObject, Output extends z.ZodType>(
  input: Input,
  output: Output,
  read: Read<Input, Output>,
) {
  return publicProcedure
    .input(input)
    .query(async ({ ctx, input: parsed }) => structured(output, await read(ctx, parsed as z.output<Input>)));
}

/** A read route, with its tRPC procedure: one declaration for both transports. */
export type ReadRoute<Input extends z.ZodObject, Output extends z.ZodType> = RestRoute & {
  procedure: ReturnType<typeof readProcedure<Input, Output>>;
};

/**
 * Declares a REST route. The declaration is all there is: routing, the OpenAPI document and the
 * docs page read the registry of declared routes. A read names its function (`read`), which REST
 * calls with the input parsed by the route's schema (a tRPC caller's middleware chain costs more
 * than a cheap read itself, docs/benchmarks.md) and which is also its tRPC query (`procedure`,
 * listed in the routers): one declaration, one function, for both transports. A write names its
 * function too (`write`), run with the request body its route reads (`readBody`) in `input.body`,
 * parsed by the same schema: writes are served over REST only (the front owns their streamed
 * bodies and write buckets), so they have no tRPC procedure.
 * @example
 * routeGroup('tokens', { listTokens: defineRestRoute({ path: '/api/v1/tokens', input: listTokensInput,
 *   output: tokenPage, read: listTokens, ... }) })
 */
export function defineRestRoute<Input extends z.ZodObject, Output extends z.ZodType>(
  route: Declared<Input, Output> & { read: Read<Input, Output> },
): Unnamed<ReadRoute<Input, Output>>;
export function defineRestRoute<Input extends z.ZodObject, Output extends z.ZodType>(
  route: Declared<Input, Output> & { method: 'POST'; write: Write<Input, Output> },
): Unnamed<RestRoute>;
export function defineRestRoute<Input extends z.ZodObject, Output extends z.ZodType>(
  route: Declared<Input, Output> &
    ({ read: Read<Input, Output> } | { method: 'POST'; write: Write<Input, Output> }),
): Unnamed<RestRoute> {
  if ('read' in route) {
    const { read, ...declared } = route;
    // `format` is REST's: tRPC answers JSON only, so its procedure keeps the list's own input.
    const input = route.csv ? route.input.extend({ format: formatParam }) : route.input;
    const declaredRead: Unnamed<ReadRoute<Input, Output>> = {
      method: 'GET',
      ...declared,
      input,
      // Synchronous: no input schema refines asynchronously, and a promise per request costs.
      parse: (given) => input.parse(given),
      run: (services, parsed) => read(services.context, parsed as z.output<Input>),
      procedure: readProcedure(route.input, route.output, read),
    };
    return declaredRead;
  }
  const { write, ...declared } = route;
  return {
    ...declared,
    // Routing and the OpenAPI document see the path and query parameters; the body is documented
    // by `requestBody`.
    input: 'body' in route.input.shape ? route.input.omit({ body: true } as never) : route.input,
    parse: (input) => route.input.parse(input),
    run: (services, parsed) => write(services.context, parsed as z.output<Input>),
  };
}

/**
 * Routes under one OpenAPI tag, each named (its `operationId`) by its key, in the registry's
 * order as declared.
 */
export function routeGroup<Routes extends Record<string, Unnamed<RestRoute>>>(
  tag: string,
  routes: Routes,
): { [Name in keyof Routes]: Routes[Name] & Pick<RestRoute, 'operationId' | 'tags'> } {
  const named = Object.entries(routes).map(([operationId, route]) => [
    operationId,
    { ...route, operationId, tags: [tag] },
  ]);
  return Object.fromEntries(named) as {
    [Name in keyof Routes]: Routes[Name] & Pick<RestRoute, 'operationId' | 'tags'>;
  };
}

/** Names of the `{param}` segments of a path template. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1] as string);
}
