import { hash } from 'node:crypto';
import type { Database } from '../../db';
import { readIndexedThroughBlock } from '../../db/checkpoint';
import { INDEXED_BLOCK_HEADER } from '../min-block';
import { type CachedAnswer, ownedBuffer } from './read-cache';
import { isSerializedAnswer } from './serialized';

/** How REST answers are serialized: JSON bodies, read answers with their ETag and block. */

/** JSON with bigint as decimal text: amounts never pass through a lossy number. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
}

export const jsonContentType = 'application/json; charset=utf-8';
const jsonHeaders = { 'content-type': jsonContentType };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(toJson(body), { status, headers: { ...jsonHeaders, ...headers } });
}

/**
 * A REST answer before any transport: the node front writes it straight to the socket, the web
 * adapter (writes, through the front's web bridge; tests) wraps it in a Response.
 */
export interface RestAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body bytes; null for 304. A HEAD answer carries the GET body, which is not sent. */
  body: Uint8Array | null;
  /** A body produced while it is sent (a CSV export, ./export.ts); absent on every other answer. */
  stream?: StreamedBody;
}

/**
 * A body the transport pulls piece by piece: it asks for the next piece once the previous one is
 * written (backpressure), so the producer holds one piece at a time.
 */
export interface StreamedBody {
  /** The next piece; null at the end. Rejects when the body was cut: end the answer incomplete. */
  next(): Promise<string | Uint8Array | null>;
  /** Aborted when the body is cut while the transport waits for the client to read. */
  readonly signal: AbortSignal;
  /** The client went away: stop, and give back what the body holds. */
  cancel(): void;
}

/** A streamed body as a web stream, pulled as its reader reads (tests and the web adapter). */
export function webStream(body: StreamedBody): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream(
    {
      start(controller) {
        body.signal.addEventListener('abort', () => controller.error(body.signal.reason), { once: true });
      },
      async pull(controller) {
        const piece = await body.next();
        if (piece === null) controller.close();
        else controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
      },
      cancel: () => body.cancel(),
    },
    { highWaterMark: 0 },
  );
}

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string>): RestAnswer {
  return { status, headers: { ...jsonHeaders, ...headers }, body: Buffer.from(toJson(body)) };
}

const readCacheControl = 'public, max-age=1, stale-while-revalidate=10';

/**
 * A read's answer, serialized once (`kept`: for the read cache): reads change only when the read
 * model does (the index advances, metadata is finalized, a token is moderated), so it carries a
 * strong ETag of its body, prefixed with indexed_through_block when the body has it, and may be
 * cached for a second.
 */
export function serializeRead(result: unknown, version: bigint, kept = true): CachedAnswer {
  const serialized = isSerializedAnswer(result);
  const text = serialized ? result.text : toJson(result);
  // Only a body the cache keeps needs a buffer of its own (ownedBuffer); one answered once does not.
  const body = kept ? ownedBuffer(text) : Buffer.from(text);
  const indexed = serialized
    ? result.indexedThroughBlock
    : typeof result === 'object' && result !== null && 'indexed_through_block' in result
      ? (result as { indexed_through_block: unknown }).indexed_through_block
      : undefined;
  const block = indexed === undefined ? '' : `b${String(indexed)}-`;
  // One-shot hash: no Hash object per answer (an uncached read pays this on every request).
  const etag = `"${block}${hash('sha256', body, 'base64url').slice(0, 22)}"`;
  const blockNumber = Number(indexed);
  return Number.isSafeInteger(blockNumber) && indexed !== null && indexed !== undefined
    ? { version, body, etag, block: blockNumber }
    : { version, body, etag };
}

/**
 * With replicas, an answer whose body does not say its block gets the block its database had
 * indexed right after the data was read: never below the data's, so a client sending it back is
 * never answered older. Without replicas every read is the primary's, which never goes back (but
 * for a reorg), and the uncached path is spared the statement.
 */
export function withBlock(
  answer: CachedAnswer,
  db: (() => Promise<Database>) | undefined,
): CachedAnswer | Promise<CachedAnswer> {
  if (answer.block !== undefined || !db) return answer;
  return db()
    .then(readIndexedThroughBlock)
    .then((block) => ({ ...answer, block }));
}

/**
 * 200 with the body, or 304 when If-None-Match names its ETag; X-Indexed-Through-Block when the
 * answer's block is known. Its headers are one object of one shape per kind of answer (every
 * uncached read builds one).
 */
export function readAnswer(ifNoneMatch: string | null, answer: CachedAnswer): RestAnswer {
  const block = answer.block === undefined ? undefined : String(answer.block);
  if (ifNoneMatchNames(ifNoneMatch, answer.etag)) {
    const headers: Record<string, string> = { etag: answer.etag, 'cache-control': readCacheControl };
    if (block !== undefined) headers[INDEXED_BLOCK_HEADER] = block;
    return { status: 304, headers, body: null };
  }
  const headers: Record<string, string> = {
    'content-type': jsonContentType,
    etag: answer.etag,
    'cache-control': readCacheControl,
  };
  if (block !== undefined) headers[INDEXED_BLOCK_HEADER] = block;
  return { status: 200, headers, body: answer.body };
}

/**
 * Whether the request's If-None-Match names `etag` (or is `*`): the client already has this
 * version. If-None-Match uses the weak comparison of RFC 9110 section 8.8.3.2: `W/"x"` matches
 * `"x"`, since a cache may have weakened the tag it stored.
 */
export function matchesIfNoneMatch(request: Request, etag: string): boolean {
  return ifNoneMatchNames(request.headers.get('if-none-match'), etag);
}

function ifNoneMatchNames(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const wanted = opaque(etag);
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === wanted);
}
