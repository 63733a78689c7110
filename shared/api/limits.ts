/**
 * Calls in one tRPC batch over HTTP. The browser's batch link sends no more, the tRPC handler
 * refuses larger batches before running any procedure, and the HTTP front counts each call of a
 * batch against the client's read limit. Browser-safe: no imports.
 */
export const TRPC_MAX_BATCH = 10;
