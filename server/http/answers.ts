import type { ServerResponse } from 'node:http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { trpcCodeFor } from '../api/trpc';
import type { AppError } from '../errors';
import type { ErrorShape, TrpcCalls } from './gate/request-line';

/**
 * The body a refusal carries in its transport's own shape: the JSON envelope of DESIGN.md
 * section 7, or a tRPC error (superjson-wrapped, per call of a batch) as the tRPC client expects.
 */
export function refusalBody(error: AppError, shape: ErrorShape, calls?: TrpcCalls): string {
  if (shape === 'envelope') return JSON.stringify(error.toBody());
  const code = trpcCodeFor(error.status);
  const one = (path: string | undefined) => ({
    error: {
      json: {
        message: error.message,
        code: TRPC_ERROR_CODES_BY_KEY[code],
        data: {
          code,
          httpStatus: error.status,
          appCode: error.code,
          zodIssues: null,
          ...(path ? { path } : {}),
        },
      },
    },
  });
  if (calls?.batch) return JSON.stringify(calls.paths.map(one));
  return JSON.stringify(one(calls?.paths[0]));
}

/**
 * Answers a request the front refused, if nothing was sent yet. `close`: the connection is not
 * reused (its request body was not read, or the client misbehaved).
 */
export function writeRefusal(
  outgoing: ServerResponse,
  error: AppError,
  shape: ErrorShape,
  options: { calls?: TrpcCalls; headers?: Record<string, string>; close?: boolean; head?: boolean } = {},
): void {
  if (outgoing.headersSent) {
    outgoing.destroy();
    return;
  }
  const body = refusalBody(error, shape, options.calls);
  outgoing.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(options.close ? { connection: 'close' } : {}),
    ...options.headers,
    ...error.headers,
  });
  outgoing.end(options.head ? undefined : body);
}
