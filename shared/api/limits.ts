/**
 * Calls in one tRPC batch over HTTP. The browser's batch link sends no more, the tRPC handler
 * refuses larger batches before running any procedure, and the HTTP front counts each call of a
 * batch against the client's read limit. Browser-safe: no imports.
 */
export const TRPC_MAX_BATCH = 10;

/**
 * Most addresses one `GET /api/v1/tokens/batch` takes (DexScreener takes 30, GeckoTerminal 30).
 * Here, not beside the batch schema, so the browser's watchlist reads it without loading zod.
 */
export const TOKENS_BATCH_MAX = 50;
