/**
 * `npm run serve`: the production web server. Next.js serves the pages, tRPC, /objects and the
 * stream; `/api/v1` REST requests go straight from `node:http` to the REST dispatcher (the same
 * one Next's catch-all route uses), skipping Next's per-request routing and web-stream response
 * path, which cost 2–3 times the handler itself (docs/benchmarks.md). Next supports this as a
 * custom server; everything else is unchanged.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import next from 'next';
import { restDispatcher } from '../server/api/rest/registry';
import { loadConfigOrExit } from './cli';

const root = path.resolve(import.meta.dirname, '..');
const config = loadConfigOrExit();
const app = next({ dev: false, dir: root, hostname: config.host, port: config.port });
const handleWithNext = app.getRequestHandler();

/** `/api/v1/…` except the event stream, which stays a Next route (long-lived, abort-driven). */
function isRestPath(pathname: string): boolean {
  return (
    pathname.startsWith('/api/v1/') && pathname !== '/api/v1/stream' && pathname !== '/api/v1/openapi.json'
  );
}

/** What a client may still send after its request was answered early (a rejected upload). */
const DISCARD_LIMIT_BYTES = 8 * 1024 * 1024;
/** How long a client past that limit has to read the answer before its connection is cut. */
const ANSWER_GRACE_MS = 1_000;
const discarding = new WeakSet<IncomingMessage>();

/**
 * Reads and drops the rest of a request body so the answer reaches the client: closing a socket
 * with unread bytes makes the kernel send a reset, and the client may lose the response (a 413)
 * with it. Past DISCARD_LIMIT_BYTES reading stops, so back-pressure halts the sender while it
 * reads the answer, and the connection is cut ANSWER_GRACE_MS after the answer went out: a
 * never-ending upload costs at most that much.
 */
function discardRest(incoming: IncomingMessage, outgoing: ServerResponse): void {
  if (incoming.complete || discarding.has(incoming)) return;
  discarding.add(incoming);
  let discarded = 0;
  const cutAfterAnswer = () => {
    const cut = () => setTimeout(() => incoming.socket.destroy(), ANSWER_GRACE_MS).unref();
    if (outgoing.writableFinished) cut();
    else outgoing.once('finish', cut);
  };
  const drop = (chunk: Buffer) => {
    discarded += chunk.byteLength;
    if (discarded <= DISCARD_LIMIT_BYTES) return;
    incoming.off('data', drop);
    incoming.pause();
    cutAfterAnswer();
  };
  incoming.on('data', drop);
  incoming.resume();
}

/**
 * The request body as a web stream with back-pressure. Unlike `Readable.toWeb`, cancelling it
 * (a handler that rejected the upload) does not destroy the socket before the answer is written.
 */
function requestBody(incoming: IncomingMessage, outgoing: ServerResponse): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.on('data', (chunk: Buffer) => {
        if (cancelled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
      });
      incoming.once('end', () => {
        if (!cancelled) controller.close();
      });
      incoming.once('error', (error) => {
        if (!cancelled) controller.error(error);
      });
    },
    pull() {
      incoming.resume();
    },
    cancel() {
      cancelled = true;
      discardRest(incoming, outgoing);
    },
  });
}

function toRequest(incoming: IncomingMessage, outgoing: ServerResponse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  // As Next does: the socket's address when no proxy supplied one (rate limits key on it).
  if (!headers.has('x-forwarded-for') && incoming.socket.remoteAddress)
    headers.set('x-forwarded-for', incoming.socket.remoteAddress);
  const method = incoming.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(`http://${incoming.headers.host ?? 'localhost'}${incoming.url ?? '/'}`, {
    method,
    headers,
    body: hasBody ? requestBody(incoming, outgoing) : undefined,
    duplex: hasBody ? 'half' : undefined,
  } as RequestInit);
}

async function sendResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  outgoing.statusCode = response.status;
  response.headers.forEach((value, name) => {
    outgoing.appendHeader(name, value);
  });
  if (!response.body) {
    outgoing.end();
    return;
  }
  const body = Buffer.from(await response.arrayBuffer());
  outgoing.setHeader('content-length', body.length);
  outgoing.end(body);
}

await app.prepare();
const server = createServer((incoming, outgoing) => {
  const pathname = (incoming.url ?? '/').split('?')[0] ?? '/';
  if (!isRestPath(pathname)) {
    void handleWithNext(incoming, outgoing);
    return;
  }
  restDispatcher
    .handle(toRequest(incoming, outgoing))
    .then((response) => sendResponse(response, outgoing))
    .then(() => discardRest(incoming, outgoing))
    .catch((error: unknown) => {
      console.error('REST front failed', error);
      if (!outgoing.headersSent) outgoing.writeHead(500, { 'content-type': 'application/json' });
      outgoing.end('{"error":{"code":"internal","message":"Internal error"}}');
    });
});
server.listen(config.port, config.host, () => {
  console.log(`▶ listening on http://${config.host}:${config.port}`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
