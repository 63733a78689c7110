import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { CLIENT_HEADER } from '../api/database-share';
import type { RestDispatcher } from '../api/rest/dispatch';
import { createWorkShares } from '../api/work-shares';
import type { Config } from '../config';
import { AppError } from '../errors';
import { recordRequest, requestIdFrom } from '../observability/request-log';
import { writeRefusal } from './answers';
import { clientAddress } from './client-address';
import { type ConcurrencyLimiter, createConcurrencyLimiter } from './concurrency';
import { answerClientError, capConnectionsPerAddress, peerClient, writeRawRefusal } from './connection';
import { createPipelineCap, type PipelineSeat } from './pipeline';
import { type ErrorShape, type RequestPolicy, requestPolicy, type TrpcCalls } from './policy';
import {
  policyHeader,
  type RateLimitDecision,
  type RateLimiter,
  rateLimitField,
  rateLimitHeaders,
  takeRateLimit,
} from './rate-limit';
import { type RestTarget, serveRest } from './rest-transport';
import { createSendDeadlines, type SendDeadlines } from './send-deadline';
import { hostPattern, isUrlHost, MAX_TARGET_BYTES, parseTarget } from './target';
import { finishUnreadBody, serveWithWebHandler } from './web-bridge';

export interface FrontServices {
  config: Config;
  logger: Logger;
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
  web: Record<WebTransport, (request: Request) => Promise<Response>>;
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

const ALLOW_ALL = 'GET, HEAD, POST, OPTIONS';

/** Done (a refusal or an answer written at once), or a promise of it when something was waited for. */
// biome-ignore lint/suspicious/noConfusingVoidType: the branches return what refuse and the handlers return, void included
type Handled = void | Promise<unknown>;
/** How long a rate-limited request is held before its 429 (Retry-After is never below 1 s). */
const REFUSAL_DELAY_MS = 500;

/**
 * The front door of the web server: one gate for every transport. Every request is answered
 * (in its transport's error shape) before any handler runs when it has a bad target, Host or
 * method, a body where none is taken, or is over its client's rate or concurrency limits; bodies
 * that stall are cut with 408; requests node:http cannot parse get a JSON answer too.
 * See docs/security.md for the threat model and every limit.
 */
export function createFront(services: FrontServices): Front {
  const { config } = services;
  const concurrency = services.concurrency ?? createConcurrencyLimiter();
  const shares = createWorkShares();
  const deadlines = { idleMs: config.http.bodyIdleTimeoutMs, totalMs: config.http.bodyTimeoutMs };
  const pipelines = createPipelineCap(config.http.pipelineMax);
  const sends = createSendDeadlines(config.http.sendTimeoutMs);
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
    const charged = client;
    setImmediate(() => {
      const total = overPipelined.get(charged) ?? 0;
      overPipelined.delete(charged);
      const taken = takeRateLimit(services.limiter, config, 'reads', charged, total, 'charge');
      if (taken instanceof Promise) taken.catch(() => {});
    });
  }

  /**
   * Whether the request may proceed: counted against its client's rate limits, concurrency slots
   * and work share (each held until the answer closes). Synchronous while nothing has to be
   * waited for (this process's limiter, a free share), which is every request of a client within
   * its limits: no promise per request on the hot path.
   */
  function admit(exchange: Exchange, policy: RequestPolicy): boolean | Promise<boolean> {
    // A limiter in this process answers synchronously; only a shared one is waited for.
    if (policy.readCost > 0) {
      const reads = takeRateLimit(services.limiter, config, 'reads', exchange.client, policy.readCost);
      if (reads instanceof Promise) return reads.then((decision) => admitCounted(exchange, policy, decision));
      return admitCounted(exchange, policy, reads);
    }
    return admitCounted(exchange, policy, undefined);
  }

  /** After the reads bucket: the write bucket, if the route has one, then the decision. */
  function admitCounted(
    exchange: Exchange,
    policy: RequestPolicy,
    reads: RateLimitDecision | undefined,
  ): boolean | Promise<boolean> {
    if (!policy.writeBucket || (reads !== undefined && !reads.allowed))
      return admitDecided(exchange, policy, reads, undefined);
    return Promise.resolve(
      takeRateLimit(services.limiter, config, policy.writeBucket, exchange.client, 1),
    ).then((writes) => admitDecided(exchange, policy, reads, writes));
  }

  /** Every bucket counted: the RateLimit fields, then a refusal, or the slots and the work share. */
  function admitDecided(
    exchange: Exchange,
    policy: RequestPolicy,
    reads: RateLimitDecision | undefined,
    writes: RateLimitDecision | undefined,
  ): boolean | Promise<boolean> {
    const { outgoing } = exchange;
    if (writes === undefined && reads?.allowed) {
      // Every admitted read: a REST read's two fields go out with its answer, in its one
      // writeHead (a header set ahead makes node copy every header of the answer again); other
      // transports' answers are written by their handlers, so theirs are set here.
      if (policy.transport === 'rest' && (exchange.method === 'GET' || exchange.head))
        exchange.rateLimit = reads;
      else setRateLimitFields(outgoing, reads);
    } else {
      const decisions: RateLimitDecision[] = [];
      if (reads) decisions.push(reads);
      if (writes) decisions.push(writes);
      const headers = combinedHeaders(decisions);
      for (const name in headers) outgoing.setHeader(name, headers[name] as string);
      const refused = decisions.find((d) => !d.allowed);
      if (refused) return tarpit(exchange, refused, headers['retry-after'] ?? '1');
    }
    if (policy.concurrency) return admitSlot(exchange, policy, policy.concurrency);
    return enterShare(exchange, policy);
  }

  /**
   * A client past its limit waits for its refusal, so hammering on kept-alive connections costs
   * it time rather than costing the server CPU (timers are free).
   */
  function tarpit(exchange: Exchange, refused: RateLimitDecision, seconds: string): Promise<false> {
    return new Promise((resolve) =>
      setTimeout(() => {
        if (!exchange.outgoing.destroyed)
          refuse(
            exchange,
            new AppError(
              'rate_limited',
              `too many ${refused.bucket} requests from this client; retry in ${seconds} s`,
            ),
          );
        resolve(false);
      }, REFUSAL_DELAY_MS),
    );
  }

  /** An upload or stream slot of the client's, held until the answer closes. */
  async function admitSlot(
    exchange: Exchange,
    policy: RequestPolicy,
    kind: 'uploads' | 'streams',
  ): Promise<boolean> {
    const max = kind === 'uploads' ? config.http.uploadsPerClient : config.http.streamsPerClient;
    const release = await concurrency.acquire(`${kind}:${exchange.client}`, max);
    if (!release) {
      refuse(
        exchange,
        new AppError(
          'rate_limited',
          `at most ${max} ${kind} at once per client; retry when one has finished`,
        ),
        { 'retry-after': '1' },
      );
      return false;
    }
    if (!exchange.hold('slot', release)) return false;
    return enterShare(exchange, policy);
  }

  /** The client's share of the work, held until the answer closes. Long-lived streams hold a slot instead. */
  function enterShare(exchange: Exchange, policy: RequestPolicy): boolean | Promise<boolean> {
    if (policy.readCost === 0 || policy.concurrency === 'streams') return true;
    const { workPerClient, queuedPerClient } = config.http;
    const turn = shares.enter(exchange.client, policy.readCost, workPerClient, queuedPerClient);
    if (turn === undefined) {
      refuse(
        exchange,
        new AppError(
          'rate_limited',
          `more than ${queuedPerClient} requests of this client are waiting; slow down`,
        ),
        { 'retry-after': '1' },
      );
      return false;
    }
    return turn instanceof Promise
      ? turn.then((release) => exchange.hold('share', release))
      : exchange.hold('share', turn);
  }

  /**
   * A read the database answered costs READ_MISS_COST requests of the reads bucket, one of them
   * counted on admission: a client that asks for what nobody else does (varied limits, searches,
   * cursors) runs out of budget sooner than one that reads what is cached. The rest is charged
   * after the answer, into debt if the bucket is empty, so the client's next requests wait for it.
   */
  function chargeDatabaseRead(client: string): Handled {
    const extra = config.readMissCost - 1;
    if (extra <= 0) return;
    const charged = takeRateLimit(services.limiter, config, 'reads', client, extra, 'charge');
    if (charged instanceof Promise) return charged;
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

  /** Synchronous up to the handler (or a wait of the gate's): see admit. */
  function handle(exchange: Exchange): Handled {
    const { incoming, outgoing, method } = exchange;
    const started = performance.now();
    sends.watch(outgoing);

    const host = incoming.headers.host;
    if (host === undefined ? incoming.httpVersion === '1.1' : host.length > 255 || !hostPattern.test(host))
      return refuse(exchange, new AppError('bad_request', 'missing or malformed Host header'));
    if (host !== undefined && !isUrlHost(host))
      return refuse(
        exchange,
        new AppError('bad_request', `the Host header is not a valid host: ${JSON.stringify(host)}`),
      );
    const target = incoming.url ?? '/';
    // Known before the target is parsed, so even an unparsable tRPC request is refused as tRPC.
    if (/^(?:https?:\/\/[^/]*)?\/+api\/+trpc\//i.test(target)) exchange.shape = 'trpc';
    if (Buffer.byteLength(target) > MAX_TARGET_BYTES)
      return refuse(
        exchange,
        new AppError('uri_too_long', `the request target exceeds ${MAX_TARGET_BYTES} bytes`),
      );
    if (target === '*') {
      if (method === 'OPTIONS') return answerOptions(outgoing, ALLOW_ALL);
      return refuse(exchange, new AppError('bad_request', 'the * target is for OPTIONS only'));
    }
    const parsed = parseTarget(target);
    if (typeof parsed === 'string') return refuse(exchange, new AppError('bad_request', parsed));
    const search = new URLSearchParams(parsed.search);
    const policy = requestPolicy(method, parsed, search, services.rest);
    if (!policy) {
      // Answered here rather than by the dispatcher, an unknown API path is still an API request:
      // it gets its X-Request-Id, access log line and latency under the `unmatched` route.
      const requestId = requestIdFrom(firstHeader(incoming.headers['x-request-id']));
      refuse(exchange, new AppError('not_found', `no route ${parsed.path}`), { 'x-request-id': requestId });
      recordRequest(services.logger, requestId, method, 'unmatched', 404, started);
      return;
    }
    exchange.shape = policy.errors;
    exchange.calls = policy.calls;
    // The event stream is meant to last; a reader that stops reading it is dropped by its queue.
    if (policy.concurrency === 'streams') sends.forget(outgoing);

    if (method === 'OPTIONS') return answerOptions(outgoing, allowed(policy));
    if (!(policy.methods as readonly string[]).includes(method)) {
      const allow = allowed(policy);
      return refuse(
        exchange,
        new AppError('method_not_allowed', `${method} is not allowed here; use ${allow}`),
        { allow },
      );
    }
    if (exchange.hasBody && !policy.takesBody)
      return refuse(
        exchange,
        new AppError('payload_too_large', `${method} ${parsed.path} takes no request body`),
      );

    exchange.path = parsed.path;
    exchange.search = parsed.search;
    exchange.query = search;
    exchange.matches = policy.matches;
    exchange.client = requestClient(incoming);
    const admitted = admit(exchange, policy);
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
        outcome === 'miss' || outcome === 'uncached' ? chargeDatabaseRead(client) : undefined,
      );
    // Every other handler sees the client as the gate identified it (tRPC reads take their
    // database share by it, uploads their storage budget); a client's own copy is dropped.
    incoming.headers[CLIENT_HEADER] = client;
    const pathAndQuery = `${exchange.path}${exchange.search}`;
    if (policy.transport !== 'page' && policy.transport !== 'asset')
      return serveWithWebHandler(
        incoming,
        outgoing,
        pathAndQuery,
        services.web[policy.transport],
        deadlines,
        policy.transport === 'stream',
      );
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

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * One request as the gate handles it, from its pipeline seat to its answer's close: how a refusal
 * is written (the envelope until the path is known to be tRPC's), what it was admitted as, and
 * what it holds. One object of one shape per request, in place of closures and argument lists:
 * everything it holds is given back by one `close` listener (`answerClosed`).
 */
class Exchange implements RestTarget {
  readonly method: string;
  readonly head: boolean;
  readonly hasBody: boolean;
  shape: ErrorShape = 'envelope';
  calls: TrpcCalls | undefined = undefined;
  /** The canonical raw path, its search and parsed query, once the target is parsed. */
  path = '';
  search = '';
  query: URLSearchParams = EMPTY_QUERY;
  /** The REST routes the path matched (the policy's). */
  matches: RestTarget['matches'] = undefined;
  /** The client's rate-limit key, once identified. */
  client = '';
  /**
   * The reads decision of an admitted REST read (GET or HEAD), written in its answer's one
   * writeHead (or with its refusal).
   */
  rateLimit: RateLimitDecision | undefined = undefined;
  /** What the request holds until its answer closes, besides its seat and its send deadline. */
  private share: (() => void) | undefined = undefined;
  private slot: (() => void) | undefined = undefined;

  constructor(
    readonly incoming: IncomingMessage,
    readonly outgoing: ServerResponse,
    private readonly seat: PipelineSeat,
    private readonly sends: SendDeadlines,
  ) {
    this.method = incoming.method ?? 'GET';
    this.head = this.method === 'HEAD';
    this.hasBody =
      incoming.headers['transfer-encoding'] !== undefined ||
      Number(incoming.headers['content-length'] ?? 0) > 0;
  }

  /**
   * Holds `release` until the answer closes; false (and released at once) when it already has:
   * `destroyed` is set before `close` is emitted, so nothing held here is missed or kept.
   */
  hold(what: 'share' | 'slot', release: () => void): boolean {
    if (this.outgoing.destroyed) {
      release();
      return false;
    }
    if (what === 'share') this.share = release;
    else this.slot = release;
    return true;
  }

  /** The answer has closed: its seat, its deadline, its share and slot are given back. */
  closed(): void {
    this.seat.leave(this.outgoing);
    this.sends.forget(this.outgoing);
    this.share?.();
    this.slot?.();
    this.share = undefined;
    this.slot = undefined;
  }
}

const EMPTY_QUERY = new URLSearchParams();

/** Where a response keeps its exchange, for the one `close` listener every response shares. */
const EXCHANGE = Symbol('launchdex.exchange');
type Answering = ServerResponse & { [EXCHANGE]?: Exchange };

/** The `close` listener of every answer: one function for all, no closure per request. */
function answerClosed(this: ServerResponse): void {
  (this as Answering)[EXCHANGE]?.closed();
}

/**
 * Refuses an exchange in its transport's shape, with the RateLimit fields it was admitted with.
 * A body refused unread is read and dropped (up to a cap, then the connection is cut a second
 * after the answer): closing a socket with unread bytes makes the kernel send a reset, which can
 * reach the client before it has read the refusal.
 */
function refuse(exchange: Exchange, error: AppError, headers?: Record<string, string>): void {
  const { incoming, outgoing, calls, rateLimit } = exchange;
  if (rateLimit && !outgoing.headersSent) setRateLimitFields(outgoing, rateLimit);
  writeRefusal(outgoing, error, exchange.shape, {
    ...(calls ? { calls } : {}),
    ...(headers ? { headers } : {}),
    head: exchange.head,
  });
  if (exchange.hasBody) finishUnreadBody(incoming, outgoing, false);
}

/** An admitted request's RateLimit fields, set on the response its handler (or refusal) writes. */
function setRateLimitFields(outgoing: ServerResponse, decision: RateLimitDecision): void {
  outgoing.setHeader('ratelimit-policy', policyHeader(decision));
  outgoing.setHeader('ratelimit', rateLimitField(decision));
}

/** The Allow list of a policy: built only for the requests that state it (OPTIONS, 405). */
function allowed(policy: RequestPolicy): string {
  return [...policy.methods, 'OPTIONS'].join(', ');
}

function answerOptions(outgoing: ServerResponse, allow: string): void {
  outgoing.writeHead(204, { allow, 'cache-control': 'no-store' });
  outgoing.end();
}

/** Every policy's fields in one header each (structured-field lists), and the longest Retry-After. */
function combinedHeaders(decisions: RateLimitDecision[]): Record<string, string> {
  if (decisions.length === 1) return rateLimitHeaders(decisions[0] as RateLimitDecision);
  const combined: Record<string, string> = {};
  for (const decision of decisions) {
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) {
      if (name === 'retry-after') {
        combined[name] = String(Math.max(Number(combined[name] ?? 0), Number(value)));
      } else combined[name] = combined[name] ? `${combined[name]}, ${value}` : value;
    }
  }
  return combined;
}
