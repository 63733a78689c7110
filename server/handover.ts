import type { Creator } from '../shared/api/creators';
import type { ListTokensInput, TokenDetail, TokenPage } from '../shared/api/tokens';
import type { PublicChain } from './chain/public-chain';
import type { ErrorCode } from './errors';

/**
 * What the pages of Next.js get from the server process: the one seam between the web server's
 * modules and Next's bundle (docs/architecture.md, "One copy of each module").
 *
 * The web server (scripts/serve.ts) loads `server/**` once, builds the process (server/process)
 * and hands this object over before Next starts. Next's bundle imports only this file, whose
 * imports are types: it never evaluates a server module of its own, so there is one database
 * pool, one rate limiter, one read cache and one stream hub per process, and an error thrown by
 * a procedure is an instance of the one AppError class.
 */
export interface PageServices {
  /** The client-safe chain description the layout hands to the browser; null without a chain. */
  chain: PublicChain | null;
  /** The origin links and cards are built against (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  /** The reads pages render from, the process's own (not counted as HTTP requests). */
  reads: PageReads;
  /** Whether `error` is (or, thrown through the caller, wraps) an AppError with this code. */
  isErrorCode(error: unknown, code: ErrorCode): boolean;
  /** A JSON error answer in the API's envelope (the share card's 404). */
  errorResponse(code: ErrorCode, message: string): Promise<Response>;
  /** The OpenAPI document of /api/v1, as /api/v1/openapi.json serves it. */
  openApiDocument(): OpenApiView;
  /** Share cards: the process's card cache and the logo a card draws. */
  shareCard: {
    get(
      token: string,
      draw: () => Promise<Buffer | null>,
    ): Promise<{ card: Buffer | null; outcome: 'rendered' | 'hit' | 'joined' }>;
    logo(imageUrl: string | null | undefined, side: number): Promise<Buffer | null>;
  };
}

/**
 * What the pages read, one function each: the same procedures as tRPC's, typed here because the
 * page thread reaches them over a message port (server/pages/protocol.ts), not by import.
 */
export interface PageReads {
  tokens(input: Partial<ListTokensInput>): Promise<TokenPage>;
  trending(input: Partial<ListTokensInput>): Promise<TokenPage>;
  token(address: string): Promise<TokenDetail>;
  creator(address: string): Promise<Creator>;
}

/** The parts of the OpenAPI document the docs page renders. */
export interface OpenApiView {
  info: { description?: string };
  paths: Record<string, Record<string, unknown>>;
}

/** The one process-wide slot: written once by the web server, read by Next's pages. */
const slot = globalThis as typeof globalThis & { __launchdexPages?: PageServices };

/** Called by the web server before Next.js prepares. */
export function handOverToPages(services: PageServices): void {
  slot.__launchdexPages = services;
}

/** The services of the process, for server components and Next's metadata routes. */
export function pageServices(): PageServices {
  const services = slot.__launchdexPages;
  if (!services)
    throw new Error(
      'no server process: pages are served by `npm run serve` or `npm run dev` (scripts/serve.ts)',
    );
  return services;
}
