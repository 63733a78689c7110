/**
 * Every path the web server answers besides Next's pages, in one table. The HTTP front's policy
 * (server/http/gate/request-line.ts) classifies a request from it; the process serves each system path with
 * the handler keyed by it (server/process/handlers.ts: a path without a handler does not compile);
 * the OpenAPI document lists the stream under its path. REST routes are declared as data in
 * server/api/rest/registry.ts and matched by one matcher (server/api/rest/match.ts), once per
 * request. `app/` holds pages only: no route file repeats any of these.
 */
export const routes = {
  /** Static assets of Next's build: never counted against a client. */
  assetsPrefix: '/_next/static/',
  /** The REST API; the paths under it are the declared routes. */
  restPrefix: '/api/v1/',
  stream: '/api/v1/stream',
  trpcPrefix: '/api/trpc/',
  devnetRpc: '/api/devnet/rpc',
  objectsPrefix: '/objects/',
} as const;

/** Paths answered by the process itself, each by one handler. */
export const systemPaths = ['/api/health', '/api/ready', '/api/metrics', '/api/v1/openapi.json'] as const;
export type SystemPath = (typeof systemPaths)[number];

/** The files of public/ (scripts/icons.ts): static, cached, never counted against a client. */
export const publicFiles: ReadonlySet<string> = new Set([
  '/favicon.ico',
  '/icon.svg',
  '/apple-touch-icon.png',
  '/icon-192.png',
  '/icon-512.png',
  '/manifest.webmanifest',
]);
