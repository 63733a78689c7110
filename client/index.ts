/**
 * A typed client of the Launchdex API: openapi-fetch over the types openapi-typescript generates
 * from the served OpenAPI document (schema.generated.ts, `npm run client:generate`), with what
 * every integrator writes next: waiting out `Retry-After`, walking a list by cursor, following
 * the live stream.
 */
import createClient, { type Client } from 'openapi-fetch';
import { type Fetch, LaunchdexError, type RetryPolicy, retryingFetch } from './retry';
import type { paths } from './schema.generated';
import { followStream, type StreamEvent, type StreamOptions } from './stream';

export { type Fetch, LaunchdexError, type RetryNotice, type RetryPolicy } from './retry';
export type { components, operations, paths } from './schema.generated';
export type {
  GraduationEventData,
  LaunchEventData,
  StreamEvent,
  StreamOptions,
  TradeEventData,
} from './stream';

export interface LaunchdexClientOptions extends RetryPolicy {
  /** Where the API is served, e.g. `https://launchdex.example` (paths start with `/api/v1`). */
  baseUrl: string;
  /** Sends each request (default: the global `fetch`). */
  fetch?: Fetch;
}

type Get<P extends keyof paths> = paths[P]['get'];

/** The routes answering `{items, next_cursor}`: every list of the API. */
export type ListPath = {
  [P in keyof paths]: Get<P> extends {
    responses: { 200: { content: { 'application/json': { items: unknown[]; next_cursor: string | null } } } };
  }
    ? P
    : never;
}[keyof paths];

type Page<P extends ListPath> = Get<P>['responses'][200]['content']['application/json'];
type Parameters_<P extends ListPath> = Get<P>['parameters'];
type PathParameters<P extends ListPath> = NonNullable<Parameters_<P>['path']>;

/** One row of a list. */
export type ListItem<P extends ListPath> = Page<P>['items'][number];

/** What a walk of a list is asked with: its query without `cursor`, and its path parameters. */
export type ListParams<P extends ListPath> = {
  query?: Omit<NonNullable<Parameters_<P>['query']>, 'cursor'>;
} & ([PathParameters<P>] extends [never] ? { path?: never } : { path: PathParameters<P> });

export interface LaunchdexClient {
  /** Every route, typed from the OpenAPI document: `api.GET('/api/v1/tokens/{address}', …)`. */
  api: Client<paths>;
  /**
   * Every row of a list, page by page to the last: it follows `next_cursor` (see docs/api.md,
   * "Walking a list while the index moves") and throws {@link LaunchdexError} on an error answer.
   */
  pages<P extends ListPath>(
    path: P,
    ...params: [PathParameters<P>] extends [never] ? [params?: ListParams<P>] : [params: ListParams<P>]
  ): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The live stream's events, reconnecting and resuming by itself (see {@link followStream}). */
  stream(options?: StreamOptions): AsyncGenerator<StreamEvent, void, undefined>;
}

export function createLaunchdexClient(options: LaunchdexClientOptions): LaunchdexClient {
  const send: Fetch = options.fetch ?? ((request) => fetch(request));
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: retryingFetch(send, options) });

  // One call for any list: the path's own types are checked at `pages`'s signature.
  const getPage = api.GET as unknown as (
    path: string,
    init: { params: { query: Record<string, unknown>; path?: Record<string, unknown> } },
  ) => Promise<{
    data?: { items: unknown[]; next_cursor: string | null };
    error?: unknown;
    response: Response;
  }>;

  return {
    api,
    async *pages<P extends ListPath>(path: P, ...[params]: [ListParams<P>?]) {
      let cursor: string | undefined;
      do {
        const { data, error, response } = await getPage(path, {
          params: { ...params, query: { ...params?.query, ...(cursor === undefined ? {} : { cursor }) } },
        });
        if (data === undefined) throw LaunchdexError.of(response, error);
        yield* data.items as ListItem<P>[];
        cursor = data.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    stream: (streamOptions = {}) =>
      followStream(async (lastId, signal) => {
        const { token } = streamOptions;
        const { data, error, response } = await api.GET('/api/v1/stream', {
          params: {
            query: token === undefined ? {} : { token },
            header: lastId === undefined ? {} : { 'Last-Event-ID': lastId },
          },
          parseAs: 'stream',
          signal,
        });
        if (!data) throw LaunchdexError.of(response, error);
        return data;
      }, streamOptions),
  };
}
