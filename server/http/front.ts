import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { createWorkShares } from '../api/database-share';
import type { RestDispatcher } from '../api/rest/dispatch';
import type { Config } from '../config';
import { AppError } from '../errors';
import type { RouteLatency } from '../observability/route-latency';
import { writeRefusal } from './answers';
import { clientAddress } from './client-address';
import { type ConcurrencyLimiter, createConcurrencyLimiter } from './concurrency';
import { answerClientError, capConnectionsPerAddress, peerClient, writeRawRefusal } from './connection';
import { chargeDatabaseRead, rateBuckets } from './gate/buckets';
import { createPipelineCap, createSendDeadlines, type PipelineSeat } from './gate/connection';
import {
  type Answering,
  answerClosed,
  EXCHANGE,
  Exchange,
  type Handled,
  refuse,
  runStages,
  type Stage,
} from './gate/exchange';
import type { RequestPolicy } from './gate/request-line';
import { requestLine } from './gate/request-line';
import { clientSlots, workShare } from './gate/slots';
import { type RateLimiter, takeRateLimit } from './rate-limit';
import { serveRest } from './rest-transport';
import { finishUnreadBody, serveWithWebHandler } from './web-bridge';

export interface FrontServices {
  config: Config;
  logger: Logger;
  /** The process's latency histogram: requests the gate answers as unmatched are recorded in it. */
  latency: RouteLatency;
  limiter: RateLimiter;
  /** Upload and stream slots per client; default: counted in this process (a cluster worker's are its primary's). */
  concurrency?: ConcurrencyLimiter;
  /** Next.js's request handler: pages and their assets, nothing else. */
  next: (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>;
  /** The REST dispatcher: `/api/v1/**` except the stream and the OpenAPI document. */
  rest: RestDispatcher;
  /**
   * The other transports, served by this process's modules rather than by Next.js (one copy of
   * each module, docs/architecture.md). The devnet RPC is a POST with a body, so it gets the
   * front's body deadlines; the stream is written as it is produced.
   */
  web: Record<WebTransport, (request: Request, client: string) => Promise<Response>>;
  /** Development only: Next's hot-reload WebSocket. Without it, upgrades are refused. */
  upgrade?: (incoming: IncomingMessage, socket: Socket, head: Buffer) => Promise<void>;
}

/** Transports answered by a web (fetch-style) handler of the process. */
export type WebTransport = 'trpc' | 'objects' | 'stream' | 'system' | 'devnet-rpc';

export interface Front {
  /** The `request` listener of the node:http server. */
  handle(incoming: IncomingMessage, outgoing: ServerResponse): void;
  /** Options for `createServer`: node's own header deadline is checked at this cadence. */
  serverOptions: ServerOptions;
  /** Deadlines and the answers to requests node:http cannot parse. */
  configure(server: Server): void;
}

/**
 * The front door of the web server: one gate for every transport. Every request is answered
 * (in its transport's error shape) before any handler runs when it has a bad target, Host or
 * method, a body where none is taken, or is over its client's rate or concurrency limits; bodies
 * that stall are cut with 408; requests node:http cannot parse get a JSON answer too.
 * See docs/security.md for the threat model and every limit.
 *
 * The gate, in order: the connection's pipeline cap (`pipelineSeat`), the request line and Host
 * (gate/request-line.ts), then the admission stages below, each a file of gate/: the rate
 * buckets, the client's upload or stream slot, its work share. The database turn is taken by the
 * read itself (server/api/database-share.ts), the deadlines by the transports (send, body).
 */
export function createFront(services: FrontServices): Front {
  const { config, limiter } = services;
  const requests = { logger: services.logger, latency: services.latency };
  const deadlines = { idleMs: config.http.bodyIdleTimeoutMs, totalMs: config.http.bodyTimeoutMs };
  const pipelines = createPipelineCap(config.http.pipelineMax);
  const sends = createSendDeadlines(config.http.sendTimeoutMs);
  const admission: readonly Stage[] = [
    rateBuckets(limiter, config),
    clientSlots(services.concurrency ?? createConcurrencyLimiter(), config),
    workShare(createWorkShares(), config),
  ];
  /** Requests past a connection's pipeline cap, per client, charged to its reads in one take. */
  const overPipelined = new Map<string, number>();

  /** The client's key: its connection's peer (parsed once per connection), or behind trusted proxies, X-Forwarded-For. */
  function requestClient(incoming: IncomingMessage): string {
    return config.trustedProxyHops === 0
      ? peerClient(incoming.socket)
      : clientAddress(
          incoming.socket.remoteAddress,
          incoming.headers['x-forwarded-for'],
          config.trustedProxyHops,
        );
  }

  /**
   * A request past its connection's pipeline cap costs one read, like any other request: counted
   * into debt (the client's next requests wait for it), for all of a burst's requests in one take
   * on the next turn of the event loop rather than one take each.
   */
  function chargeOverPipelined(incoming: IncomingMessage): void {
    // A flood parses hundreds of requests per socket read: its address is parsed once.
    const client = requestClient(incoming);
    const count = overPipelined.get(client) ?? 0;
    overPipelined.set(client, count + 1);
    if (count > 0) return;
    setImmediate(() => {
      const total = overPipelined.get(client) ?? 0;
      overPipelined.delete(client);
      const taken = takeRateLimit(limiter, config, 'reads', client, total, 'charge');
      if (taken instanceof Promise) taken.catch(() => {});
    });
  }

  /**
   * The connection's pipeline cap, first of all and synchronously: a request past it is charged
   * and refused (or dropped) before anything else about it is looked at, at the least cost per
   * request a pipelined flood can make the server parse. The refusal is about the connection, so
   * it is the JSON envelope whatever the transport (pipelining clients are scripts, not tRPC).
   */
  function pipelineSeat(incoming: IncomingMessage, outgoing: ServerResponse): PipelineSeat | undefined {
    const pipelined = pipelines.enter(incoming, outgoing);
    if (typeof pipelined === 'object') return pipelined;
    chargeOverPipelined(incoming);
    if (pipelined === 'refuse') {
      writeRefusal(
        outgoing,
        new AppError(
          'rate_limited',
          `at most ${config.http.pipelineMax} requests in flight per connection; this connection closes`,
        ),
        'envelope',
        { headers: { 'retry-after': '1' }, close: true, head: incoming.method === 'HEAD' },
      );
      if (
        incoming.headers['transfer-encoding'] !== undefined ||
        Number(incoming.headers['content-length'] ?? 0) > 0
      )
        finishUnreadBody(incoming, outgoing, false);
    }
    return undefined;
  }

  /** Synchronous up to the handler (or a wait of the gate's): see runStages. */
  function handle(exchange: Exchange): Handled {
    const started = performance.now();
    sends.watch(exchange.outgoing);
    const policy = requestLine(exchange, services.rest, requests, sends, started);
    if (!policy) return;
    exchange.client = requestClient(exchange.incoming);
    const admitted = runStages(admission, exchange, policy);
    if (admitted === true) return serve(exchange, policy);
    if (admitted !== false) return admitted.then((ok) => (ok ? serve(exchange, policy) : undefined));
  }

  /** An admitted request, to its transport. */
  function serve(exchange: Exchange, policy: RequestPolicy): Handled {
    if (policy.refuse) return refuse(exchange, new AppError('bad_request', policy.refuse));
    const { incoming, outgoing, client } = exchange;
    // REST is handed the client with its target and reads no header of that name.
    if (policy.transport === 'rest')
      return serveRest(incoming, outgoing, exchange, services.rest, deadlines, (outcome) =>
        outcome === 'miss' || outcome === 'uncached'
          ? chargeDatabaseRead(limiter, config, client)
          : undefined,
      );
    const pathAndQuery = `${exchange.path}${exchange.search}`;
    if (policy.transport !== 'page' && policy.transport !== 'asset') {
      // Handed the client as the gate identified it (tRPC reads take their database share by it).
      const handler = services.web[policy.transport];
      return serveWithWebHandler(
        incoming,
        outgoing,
        pathAndQuery,
        (request) => handler(request, client),
        deadlines,
        policy.transport === 'stream',
      );
    }
    // Next sees the same canonical path the policy was decided on.
    incoming.url = pathAndQuery;
    return services.next(incoming, outgoing);
  }

  function failed(outgoing: ServerResponse, error: unknown): void {
    services.logger.error({ err: error }, 'HTTP front failed');
    writeRefusal(outgoing, new AppError('internal', 'Internal error'), 'envelope', { close: true });
  }

  return {
    serverOptions: {
      // Missing Host is answered by the front with a JSON envelope rather than node's bare 400.
      requireHostHeader: false,
      // Node checks header and request deadlines on this timer (30 s by default): a slowloris
      // head would otherwise live up to 30 s past its deadline.
      connectionsCheckingInterval: Math.min(1_000, config.http.headersTimeoutMs),
    },
    handle(incoming, outgoing) {
      const seat = pipelineSeat(incoming, outgoing);
      if (!seat) return;
      const exchange = new Exchange(incoming, outgoing, seat, sends);
      (outgoing as Answering)[EXCHANGE] = exchange;
      outgoing.on('close', answerClosed);
      try {
        handle(exchange)?.catch((error: unknown) => failed(outgoing, error));
      } catch (error) {
        failed(outgoing, error);
      }
    },
    configure(server) {
      server.headersTimeout = config.http.headersTimeoutMs;
      // Node's own backstop for a whole request; the front's body deadlines answer first.
      server.requestTimeout = config.http.headersTimeoutMs + config.http.bodyTimeoutMs + 5_000;
      if (config.trustedProxyHops === 0) capConnectionsPerAddress(server, config.http.connectionsPerClient);
      server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
        answerClientError(error, socket),
      );
      // CONNECT (a proxy tunnel) and protocol upgrades are not served; without these listeners
      // node:http would drop the socket without a word.
      server.on('connect', (_request: IncomingMessage, socket: Socket) =>
        writeRawRefusal(socket, 405, 'method_not_allowed', 'CONNECT is not served here'),
      );
      const { upgrade } = services;
      server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
        if (upgrade) void upgrade(request, socket, head).catch(() => socket.destroy());
        else writeRawRefusal(socket, 400, 'bad_request', 'protocol upgrades are not served here');
      });
    },
  };
}
