import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import type { PublicClient } from 'viem';
import { ZodError } from 'zod';
import type { Config } from '../config';
import type { Database } from '../db';
import { AppError } from '../errors';
import type { ImageFetcher } from '../metadata/fetch-image';
import type { ObjectStore } from '../objects/store';

/** Wall-clock source, injected so time-dependent rules are testable. */
export type Clock = () => Date;

export interface Context {
  db: Database;
  config: Config;
  clock: Clock;
  /** The configured object store (filesystem or S3), opened on first use. */
  objects: () => Promise<ObjectStore>;
  /** SSRF-guarded fetch of a creator's image URL. */
  fetchImage: ImageFetcher;
  /** The indexed chain, for reads that must ask it directly (finalize); undefined if none is configured. */
  chain: () => { client: PublicClient; chainId: number; factory: `0x${string}` } | undefined;
}

const t = initTRPC.context<Context>().create({
  // bigint amounts travel to the UI as bigint, not as lossy numbers.
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const appError = error.cause instanceof AppError ? error.cause : undefined;
    return {
      ...shape,
      message:
        appError?.message ?? (error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal error' : shape.message),
      data: {
        code: shape.data.code,
        httpStatus: appError?.status ?? shape.data.httpStatus,
        appCode: appError?.code ?? null,
        zodIssues: error.cause instanceof ZodError ? error.cause.issues.length : null,
      },
    };
  },
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure is public: reads are anonymous and writes carry their own proof (signatures).
 * AppErrors thrown by handlers are wrapped so they cross tRPC with their public code intact.
 */
export const publicProcedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError && result.error.code === 'INTERNAL_SERVER_ERROR') {
    const appError = result.error.cause;
    throw new TRPCError({ code: trpcCodeFor(appError.status), message: appError.message, cause: appError });
  }
  return result;
});

function trpcCodeFor(status: number): TRPCError['code'] {
  switch (status) {
    case 400:
      return 'BAD_REQUEST';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 422:
      return 'UNPROCESSABLE_CONTENT';
    case 429:
      return 'TOO_MANY_REQUESTS';
    default:
      return 'INTERNAL_SERVER_ERROR';
  }
}
