import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { Agent, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { appErrorCodeOf } from '../errors';
import type { PageServices } from '../handover';
import { compiled, moduleWorker } from '../module-worker';
import {
  bufferOf,
  type CrossedResponse,
  crossed,
  type FromThread,
  type PageAsk,
  type PageThreadData,
  type ToThread,
} from './protocol';

/** The page thread as the web server sees it: Next's request handler, answered from the thread. */
export interface PageRenderer {
  /** Pages and their assets: proxied to the thread (the front has already gated the request). */
  handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

export interface PageRendererOptions extends Pick<PageThreadData, 'root' | 'hostname' | 'port'> {
  /** The process's services, as the pages read them. */
  services: PageServices;
  logger: Logger;
  /** Delay before a page thread that died is started again. */
  restartDelayMs?: number;
  /** Called with each page thread as it starts (tests stop one to see it replaced). */
  onThread?: (thread: Worker) => void;
}

/** Headers of one hop only (RFC 9110 §7.6.1): never forwarded either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * Starts Next.js in its own worker thread (server/pages/thread.ts) and answers the thread's
 * questions from `services`. The returned handler proxies a page request to the thread's socket;
 * a thread that dies is started again, and requests wait for it.
 */
export async function startPageRenderer(options: PageRendererOptions): Promise<PageRenderer> {
  const { services, logger, root, hostname, port } = options;
  const name = `launchdex-pages-${process.pid}-${randomBytes(4).toString('hex')}`;
  // On Linux an abstract socket: a process that dies uncleanly (SIGKILL) leaves no file behind.
  const abstract = process.platform === 'linux';
  const socketPath = abstract ? `\0${name}` : path.join(tmpdir(), `${name}.sock`);
  const data: PageThreadData = {
    root,
    hostname,
    port,
    socketPath,
    chain: services.chain,
    publicBaseUrl: services.publicBaseUrl,
    openApi: services.openApiDocument(),
  };
  // Compiled, every module is in dist/ beside the thread's (scripts/build-server.mjs).
  const threadModule = new URL(compiled ? './page-thread.js' : './thread.ts', import.meta.url);
  const agent = new Agent({ keepAlive: true });
  let closing = false;

  function start(): Promise<Worker> {
    const worker = moduleWorker(threadModule, { workerData: data });
    options.onThread?.(worker);
    /** The cards this thread is drawing for the process: settled by its `drawn`, or its exit. */
    const drawing = new Map<number, { resolve(card: Buffer | null): void; reject(error: Error): void }>();
    const post = (message: ToThread) => worker.postMessage(message);

    async function act(id: number, question: PageAsk): Promise<unknown> {
      switch (question.op) {
        case 'read':
          return (services.reads[question.name] as (...args: unknown[]) => Promise<unknown>)(
            ...question.args,
          );
        case 'errorResponse': {
          const response = await services.errorResponse(question.code, question.message);
          const body = await response.text();
          return { status: response.status, headers: [...response.headers], body } satisfies CrossedResponse;
        }
        case 'card': {
          const { card, outcome } = await services.shareCard.get(
            question.token,
            () =>
              new Promise<Buffer | null>((resolve, reject) => {
                drawing.set(id, { resolve, reject });
                post({ type: 'draw', id });
              }),
          );
          return { card: card ? new Uint8Array(card) : null, outcome };
        }
        case 'logo': {
          const logo = await services.shareCard.logo(question.imageUrl, question.side);
          return logo ? new Uint8Array(logo) : null;
        }
      }
    }

    return new Promise<Worker>((resolve, reject) => {
      let started = false;
      worker.on('message', (message: FromThread) => {
        if (message.type === 'ready') {
          started = true;
          return resolve(worker);
        }
        const { id } = message;
        if (message.type === 'ask') {
          act(id, message).then(
            (value) => post({ type: 'answer', id, ok: true, value }),
            (error: unknown) =>
              post({ type: 'answer', id, ok: false, error: crossed(error, appErrorCodeOf(error)) }),
          );
        } else {
          const waiting = drawing.get(id);
          drawing.delete(id);
          if (message.ok) waiting?.resolve(bufferOf(message.value));
          else waiting?.reject(new Error(message.error.message));
        }
      });
      let failure: Error | undefined;
      worker.on('error', (error) => {
        failure = error;
        logger.error({ err: error }, 'page thread failed');
      });
      worker.on('exit', (code) => {
        for (const waiting of drawing.values()) waiting.reject(new Error('the page thread exited'));
        drawing.clear();
        if (!started) {
          const why = failure ? `: ${failure.message}` : '';
          reject(
            new Error(`the page thread exited (code ${code}) before it was ready${why}`, { cause: failure }),
          );
        } else if (!closing) {
          logger.error({ code }, 'page thread exited; starting another');
          ready = new Promise((again) => setTimeout(again, options.restartDelayMs ?? 1_000)).then(start);
          // A restart that fails is reported, and the next request tries again.
          ready.catch((error: unknown) => logger.error({ err: error }, 'page thread restart failed'));
        }
      });
    });
  }

  /** The running thread's readiness: every request waits on the current one. */
  let ready = start();
  await ready;

  /** The page could not be rendered: a short HTML 502, never cached. */
  function unavailable(outgoing: ServerResponse, error: unknown, why: string): void {
    if (outgoing.headersSent) return void outgoing.destroy();
    logger.error({ err: error }, why);
    outgoing.writeHead(502, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    outgoing.end(
      '<!doctype html><title>Launchdex</title><p>This page cannot be rendered right now. Try again shortly.</p>',
    );
  }

  function proxy(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const headers = Object.fromEntries(
        Object.entries(incoming.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
      );
      const upstream = request(
        { socketPath, agent, method: incoming.method, path: incoming.url, headers },
        (answer) => {
          for (const [name, value] of Object.entries(answer.headers))
            if (value !== undefined && !HOP_BY_HOP.has(name)) outgoing.setHeader(name, value);
          outgoing.writeHead(answer.statusCode ?? 502);
          // An aborted client ends the upstream answer too (its socket is then not reused).
          pipeline(answer, outgoing, () => resolve());
        },
      );
      upstream.on('error', (error) => {
        unavailable(outgoing, error, 'page thread did not answer');
        resolve();
      });
      // Not pipeline: an upstream failure must leave the client's socket open for the 502.
      incoming.pipe(upstream);
    });
  }

  return {
    handle: (incoming, outgoing) =>
      ready.then(
        () => proxy(incoming, outgoing),
        (error: unknown) => unavailable(outgoing, error, 'no page thread'),
      ),
    async close() {
      closing = true;
      agent.destroy();
      const worker = await ready.catch(() => undefined);
      await worker?.terminate();
      // Unless already removed by the thread's server.
      if (!abstract) await unlink(socketPath).catch(() => {});
    },
  };
}
