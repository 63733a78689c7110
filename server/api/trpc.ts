import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import type { PublicClient } from 'viem';
import type { Config } from '../config';
import type { Database } from '../db';
import { readIndexedThroughBlock } from '../db/checkpoint';
import { isConnectionError } from '../db/connector';
import type { ReadDatabases } from '../db/read-databases';
import { type AppError, isAppError } from '../errors';
import type { ImageFetcher } from '../metadata/fetch-image';
import type { ObjectStore } from '../objects/store';
import { cursorBlock } from './cursor';
import { type DatabaseTurn, whileHolding } from './database-share';
import { highestBlock } from './min-block';
import { isZodError, toAppError } from './rest/errors';

/** Wall-clock source, injected so time-dependent rules are testable. */
export type Clock = () => Date;

export interface Context {
  /**
   * How the procedure was reached: `http` through /api/trpc, `caller` in-process (the REST
   * adapter and server components, which have already parsed and limited the request).
   */
  transport: 'http' | 'caller';
  db: Database;
  config: Config;
  clock: Clock;
  /** The configured object store (filesystem or S3), opened on first use. */
  objects: () => Promise<ObjectStore>;
  /** SSRF-guarded fetch of a creator's image URL. */
  fetchImage: ImageFetcher;
  /** The indexed chain, for reads that must ask it directly (finalize); undefined if none is configured. */
  chain: () => { client: PublicClient; chainId: number; factory: `0x${string}` } | undefined;
  /** HMAC key of pagination cursors: CURSOR_SECRET or the key persisted in the database. */
  cursorSecret: string;
  /** The client as the HTTP front identified it (tRPC over HTTP and REST writes behind the front only). */
  client?: string;
  /**
   * Where queries read: each runs on the database these route it to (a replica at or above
   * `minBlock`, else the primary), with `db` replaced for its run. Absent: `db` answers every query.
   * Mutations always use `db`, the primary.
   */
  reads?: ReadDatabases;
  /** The highest indexed_through_block the caller has seen (X-Min-Indexed-Block). */
  minBlock?: number;
  /**
   * Filled by routed queries with the block their database had indexed after their data was
   * read (the highest of a batch): the answer's X-Indexed-Through-Block.
   */
  answered?: { block: number | undefined };
  /**
   * The process's database shares per client (server/api/database-share.ts), taken by queries
   * over HTTP; absent (a test's or a script's context): queries are not shared out.
   */
  databaseTurn?: DatabaseTurn;
}

const t = initTRPC.context<Context>().create({
  // bigint amounts travel to the UI as bigint, not as lossy numbers.
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const appError: AppError | undefined = isAppError(error.cause) ? error.cause : undefined;
    return {
      ...shape,
      message:
        appError?.message ?? (error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal error' : shape.message),
      data: {
        code: shape.data.code,
        httpStatus: appError?.status ?? shape.data.httpStatus,
        appCode: appError?.code ?? null,
        zodIssues: isZodError(error.cause) ? error.cause.issues.length : null,
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
export const publicProcedure = t.procedure.use(async ({ ctx, type, next, getRawInput }) => {
  // A query from outside takes one of its client's database slots, shared with its REST reads.
  const release =
    type === 'query' && ctx.transport === 'http' ? await ctx.databaseTurn?.(ctx.client) : undefined;
  const { reads } = ctx;
  // A read that failed on the connection is not charged (ReleaseTurn).
  const result = await whileHolding(
    release,
    async () =>
      type === 'query' && reads
        ? reads.read(highestBlock(ctx.minBlock, await inputCursorBlock(ctx, getRawInput)), async ({ db }) => {
            const routed = await next({ ctx: { db, reads: undefined } });
            // Rethrown so the routing retries a replica's lost connection once on the primary.
            if (!routed.ok && isConnectionError(routed.error.cause)) throw routed.error.cause;
            const { answered } = ctx;
            if (routed.ok && answered) {
              const block = await readIndexedThroughBlock(db);
              answered.block = Math.max(answered.block ?? 0, block);
            }
            return routed;
          })
        : next(),
    (answer) => (answer.ok ? undefined : answer.error.cause),
  );
  if (result.ok || result.error.code !== 'INTERNAL_SERVER_ERROR') return result;
  const { appError, unexpected } = toAppError(result.error.cause);
  if (!unexpected)
    throw new TRPCError({ code: trpcCodeFor(appError.status), message: appError.message, cause: appError });
  return result;
});

/**
 * The block a query's `cursor` input says it was issued at (its walk's high-water mark); input
 * that cannot be read counts as none (its parser answers it, and the list verifies the cursor).
 */
async function inputCursorBlock(
  ctx: Context,
  getRawInput: () => Promise<unknown>,
): Promise<number | undefined> {
  if (!ctx.reads?.replicated) return undefined;
  const input = await getRawInput().catch(() => undefined);
  return typeof input === 'object' && input !== null && 'cursor' in input
    ? cursorBlock(input.cursor)
    : undefined;
}

export function trpcCodeFor(status: number): TRPCError['code'] {
  switch (status) {
    case 400:
      return 'BAD_REQUEST';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 405:
      return 'METHOD_NOT_SUPPORTED';
    case 408:
      return 'TIMEOUT';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 414:
      return 'BAD_REQUEST';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 422:
      return 'UNPROCESSABLE_CONTENT';
    case 429:
      return 'TOO_MANY_REQUESTS';
    case 431:
      return 'BAD_REQUEST';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return 'INTERNAL_SERVER_ERROR';
  }
}
