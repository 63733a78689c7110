import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors';

/** What a client may still send after its request was answered early (a rejected upload). */
const DISCARD_LIMIT_BYTES = 8 * 1024 * 1024;
/** How long a client whose body is unfinished has to read the answer before the connection is cut. */
const ANSWER_GRACE_MS = 1_000;

export interface BodyDeadlines {
  /** No byte for this long while the server waits for one: 408. */
  idleMs: number;
  /** The whole body must arrive within this long of the request head: 408. */
  totalMs: number;
}

/** Bodies being streamed to a handler, by request: node's parser may break one off (below). */
const streamingBodies = new WeakMap<IncomingMessage, (error: AppError) => void>();

/**
 * Ends the body stream of `incoming` with `error` when node's parser finds the rest of the body
 * malformed (a bad chunk): the handler answers with it instead of waiting for bytes that will
 * never be parsed (when a body of that request is streaming).
 */
export function failRequestBody(incoming: IncomingMessage, error: AppError): void {
  streamingBodies.get(incoming)?.(error);
}

/**
 * The request body as a web stream with back-pressure and deadlines. The idle clock runs only
 * while the server is waiting for bytes (not while a handler digests a chunk), so a slow drip is
 * cut whatever its pace, and a fast client behind a busy server is not. A deadline errors the
 * stream with 408 `request_timeout`; the handler turns that into its answer.
 */
function requestBody(incoming: IncomingMessage, deadlines: BodyDeadlines) {
  let settled = false;
  let timedOut = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let totalTimer: NodeJS.Timeout | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Stops the clocks; true only when the stream was still open. */
  const settle = () => {
    clearTimeout(idleTimer);
    clearTimeout(totalTimer);
    const open = !settled;
    settled = true;
    return open;
  };
  const fail = (error: AppError) => {
    if (!settle()) return;
    incoming.pause();
    controller.error(error);
  };
  /** A deadline: unless the body settles first, it fails with 408 after `ms`. */
  const clock = (ms: number, what: string) =>
    setTimeout(() => {
      if (settled) return;
      timedOut = true;
      fail(new AppError('request_timeout', `${what} ${ms} ms`));
    }, ms);
  streamingBodies.set(incoming, fail);
  const release = () => {
    settle();
    streamingBodies.delete(incoming);
  };
  const waitForBytes = () => {
    clearTimeout(idleTimer);
    idleTimer = clock(deadlines.idleMs, 'no part of the request body arrived for');
  };
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      totalTimer = clock(deadlines.totalMs, 'the request body did not arrive within');
      waitForBytes();
      incoming.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) {
          clearTimeout(idleTimer);
          incoming.pause();
        } else waitForBytes();
      });
      incoming.once('end', () => {
        if (settle()) controller.close();
      });
      incoming.once('error', () => fail(new AppError('bad_request', 'the request body broke off')));
    },
    pull() {
      if (settled) return;
      waitForBytes();
      incoming.resume();
    },
    // The handler rejected the body: its answer goes out first, then the rest is dropped.
    cancel: release,
  });
  return { stream, release, timedOut: () => timedOut };
}

/**
 * After the answer to a request whose body was not read to the end: read and drop what follows
 * (closing a socket with unread bytes makes the kernel send a reset, and the client could lose
 * the answer with it), up to DISCARD_LIMIT_BYTES, and cut the connection ANSWER_GRACE_MS after
 * the answer went out unless the body ended by then. A never-ending body costs at most that.
 */
export function finishUnreadBody(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  timedOut: boolean,
): void {
  if (incoming.complete) return;
  let discarded = 0;
  const cut = () => incoming.socket?.destroy();
  const drop = (chunk: Buffer) => {
    discarded += chunk.byteLength;
    if (discarded > DISCARD_LIMIT_BYTES) {
      incoming.off('data', drop);
      incoming.pause();
    }
  };
  if (!timedOut) {
    incoming.on('data', drop);
    incoming.resume();
  }
  const arm = () => {
    if (timedOut) return cut();
    const timer = setTimeout(cut, ANSWER_GRACE_MS).unref();
    incoming.once('end', () => clearTimeout(timer));
  };
  if (outgoing.writableFinished) arm();
  else outgoing.once('finish', arm);
}

/**
 * Writes a body that is meant to last (the event stream) as it comes, waiting for the socket to
 * drain; the client going away cancels the body, which ends its producer.
 */
async function pipeBody(body: ReadableStream<Uint8Array>, outgoing: ServerResponse): Promise<void> {
  outgoing.flushHeaders();
  const reader = body.getReader();
  const gone = () => void reader.cancel().catch(() => {});
  outgoing.once('close', gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || outgoing.destroyed) break;
      if (!outgoing.write(value))
        await new Promise<void>((resolve) => {
          const resume = () => {
            outgoing.off('drain', resume);
            outgoing.off('close', resume);
            resolve();
          };
          outgoing.on('drain', resume);
          outgoing.on('close', resume);
        });
    }
  } catch {
    // The producer failed or was cancelled: the connection ends below.
  } finally {
    outgoing.off('close', gone);
    outgoing.end();
  }
}

/**
 * Serves a node request with a fetch-style handler (the REST dispatcher, the devnet RPC proxy):
 * the URL is built from the path alone, never from the Host header; the body streams with
 * back-pressure under `deadlines`; the answer is written once, then any unread body is dealt with.
 * @example await serveWithWebHandler(incoming, outgoing, '/api/v1/tokens?limit=5', handler, deadlines)
 */
export async function serveWithWebHandler(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  pathAndQuery: string,
  handler: (request: Request) => Promise<Response>,
  deadlines: BodyDeadlines,
  /** Write the body as it is produced (the event stream) rather than once, with its length. */
  streaming = false,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers))
    for (const item of [value ?? []].flat()) headers.append(name, item);
  const method = incoming.method ?? 'GET';
  const body = method === 'POST' ? requestBody(incoming, deadlines) : undefined;
  // The request's signal tells a long-lived handler (the stream) that its client has gone.
  const gone = streaming ? new AbortController() : undefined;
  if (gone) outgoing.once('close', () => gone.abort());
  const request = new Request(`http://localhost${pathAndQuery}`, {
    method,
    headers,
    ...(gone ? { signal: gone.signal } : {}),
    body: body?.stream,
    duplex: body ? 'half' : undefined,
  } as RequestInit);
  try {
    const response = await handler(request);
    outgoing.statusCode = response.status;
    for (const [name, value] of response.headers) outgoing.appendHeader(name, value);
    if (body?.timedOut()) outgoing.setHeader('connection', 'close');
    if (streaming && response.body) await pipeBody(response.body, outgoing);
    else {
      const answer = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
      if (answer) outgoing.setHeader('content-length', answer.length);
      outgoing.end(answer);
    }
  } finally {
    body?.release();
  }
  finishUnreadBody(incoming, outgoing, body?.timedOut() === true);
}
