import type { PublicChain } from '../chain/public-chain';
import type { ErrorCode } from '../errors';
import type { OpenApiView, PageReads } from '../handover';

/**
 * The messages between a web server process and its page thread (docs/decisions.md, "Pages
 * render in their own thread"). The thread asks; the process answers from its own services.
 * Everything crosses by structured clone: data, never functions or class instances. This module
 * is loaded by both sides, so it imports types only.
 */

/** What the thread is started with: everything of PageServices that never changes. */
export interface PageThreadData {
  /** The project root (Next's `dir`). */
  root: string;
  hostname: string;
  port: number;
  /** The Unix socket (abstract on Linux) the thread's HTTP server listens on; the process proxies pages to it. */
  socketPath: string;
  chain: PublicChain | null;
  publicBaseUrl: string;
  openApi: OpenApiView;
}

/** The thread's questions, by operation. */
export type PageAsk =
  | { op: 'read'; name: keyof PageReads; args: unknown[] }
  | { op: 'errorResponse'; code: ErrorCode; message: string }
  | { op: 'card'; token: string }
  | { op: 'logo'; imageUrl: string | null | undefined; side: number };

/** An error as it crosses: its AppError code when it had one, so the thread can tell a 404. */
export interface CrossedError {
  message: string;
  code?: ErrorCode;
}

/** `error` as it crosses, with the AppError code the process found on it (the thread has none). */
export function crossed(error: unknown, code?: ErrorCode): CrossedError {
  return { message: error instanceof Error ? error.message : String(error), code };
}

export type Settled = { ok: true; value: unknown } | { ok: false; error: CrossedError };

/** Thread → process. */
export type FromThread =
  | { type: 'ready' }
  | ({ type: 'ask'; id: number } & PageAsk)
  /** The thread's drawing of the card the process asked for (`draw` of the ask `id`). */
  | ({ type: 'drawn'; id: number } & Settled);

/** Process → thread. */
export type ToThread =
  | ({ type: 'answer'; id: number } & Settled)
  /** The card cache missed: draw the card of the ask `id` (its cache key is the process's). */
  | { type: 'draw'; id: number };

/** An error response as it crosses (a web Response cannot). */
export interface CrossedResponse {
  status: number;
  headers: [string, string][];
  body: string;
}

/** Bytes as they crossed (structured clone makes a Buffer a Uint8Array) as a Buffer again; else null. */
export function bufferOf(value: unknown): Buffer | null {
  return value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : null;
}
