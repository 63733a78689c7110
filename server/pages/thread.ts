/**
 * The page thread: Next.js, alone in its own worker thread, behind a private Unix socket. It
 * renders pages and their assets; every service a page reads (the tRPC caller, share cards, the
 * OpenAPI document) is asked of the web server process over the thread's message port, so the
 * data still comes from the process's one pool, cache and limits (server/handover.ts).
 *
 * Why a thread (docs/decisions.md, "Pages render in their own thread"): once Next.js has
 * rendered a page it keeps AsyncLocalStorage hooks on for every promise of its isolate. Here they
 * tax only page renders, not the API's reads.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import next from 'next';
import { handOverToPages, type PageReads, type PageServices } from '../handover';
import {
  bufferOf,
  type CrossedError,
  type CrossedResponse,
  crossed,
  type FromThread,
  type PageAsk,
  type PageThreadData,
  type ToThread,
} from './protocol';

if (!parentPort) throw new Error('server/pages/thread.ts runs as a worker thread (server/pages/renderer.ts)');
const port = parentPort;
const data = workerData as PageThreadData;

/** An error the process answered with; `crossed.code` is its AppError code when it had one. */
class PageCallError extends Error {
  override readonly name = 'PageCallError';
  constructor(readonly crossed: CrossedError) {
    super(crossed.message);
  }
}

const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
/** The card drawings the process may ask for, by the id of the ask that fetched the card. */
const draws = new Map<number, () => Promise<Buffer | null>>();
let nextId = 0;

const post = (message: FromThread) => port.postMessage(message);

function ask(question: PageAsk, draw?: () => Promise<Buffer | null>): Promise<unknown> {
  const id = ++nextId;
  if (draw) draws.set(id, draw);
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    post({ type: 'ask', id, ...question });
  });
}

port.on('message', (message: ToThread) => {
  const { id } = message;
  if (message.type === 'draw') {
    const draw = draws.get(id) ?? (() => Promise.reject(new Error('no drawing for this card')));
    return void draw().then(
      (card) => post({ type: 'drawn', id, ok: true, value: card ? new Uint8Array(card) : null }),
      (error: unknown) => post({ type: 'drawn', id, ok: false, error: crossed(error) }),
    );
  }
  const waiting = pending.get(id);
  if (!waiting) return;
  pending.delete(id);
  draws.delete(id);
  if (message.ok) waiting.resolve(message.value);
  else waiting.reject(new PageCallError(message.error));
});

/** A read of the process's, asked over the port: its answer is what the process's function returned. */
function read<Name extends keyof PageReads>(name: Name) {
  return (...args: Parameters<PageReads[Name]>) =>
    ask({ op: 'read', name, args }) as ReturnType<PageReads[Name]>;
}

type CardOutcome = Awaited<ReturnType<PageServices['shareCard']['get']>>['outcome'];
const services: PageServices = {
  chain: data.chain,
  publicBaseUrl: data.publicBaseUrl,
  reads: {
    tokens: read('tokens'),
    trending: read('trending'),
    token: read('token'),
    creator: read('creator'),
  },
  isErrorCode: (error, code) => error instanceof PageCallError && error.crossed.code === code,
  errorResponse: async (code, message) => {
    const answer = (await ask({ op: 'errorResponse', code, message })) as CrossedResponse;
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  },
  openApiDocument: () => data.openApi,
  shareCard: {
    get: async (token, draw) => {
      const got = (await ask({ op: 'card', token }, draw)) as { card: unknown; outcome: CardOutcome };
      return { card: bufferOf(got.card), outcome: got.outcome };
    },
    logo: async (imageUrl, side) => bufferOf(await ask({ op: 'logo', imageUrl, side })),
  },
};
handOverToPages(services);

const app = next({ dev: false, dir: data.root, hostname: data.hostname, port: data.port });
await app.prepare();
const handler = app.getRequestHandler();
const server = createServer((incoming, outgoing) => void handler(incoming, outgoing));
// Only the process connects, over keep-alive; deadlines are its front's (server/http/front.ts).
server.keepAliveTimeout = 0;
server.requestTimeout = 0;
await once(server.listen(data.socketPath), 'listening');
post({ type: 'ready' });
