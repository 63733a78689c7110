import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppError } from '../../errors';
import { writeRefusal } from '../answers';
import { policyHeader, type RateLimitDecision, rateLimitField } from '../rate-limit';
import type { RestTarget } from '../rest-transport';
import { finishUnreadBody } from '../web-bridge';
import type { PipelineSeat, SendDeadlines } from './connection';
import type { ErrorShape, RequestPolicy, TrpcCalls } from './request-line';

/**
 * A stage of the gate: true when the request may go on to the next, false when the stage has
 * answered it (a refusal); a promise of either only when the stage had to wait (a shared limiter,
 * a queued work share). The hot path of a client within its limits makes no promise.
 */
export type Stage = (exchange: Exchange, policy: RequestPolicy) => boolean | Promise<boolean>;

/**
 * The stages in order, each run only when the one before let the request on; synchronous while
 * every stage is, so a request within its limits goes through without a promise.
 */
export function runStages(
  stages: readonly Stage[],
  exchange: Exchange,
  policy: RequestPolicy,
  from = 0,
): boolean | Promise<boolean> {
  for (let at = from; at < stages.length; at++) {
    const passed = (stages[at] as Stage)(exchange, policy);
    if (passed === false) return false;
    if (passed !== true) return passed.then((ok) => ok && runStages(stages, exchange, policy, at + 1));
  }
  return true;
}

/** Done (a refusal or an answer written at once), or a promise of it when something was waited for. */
// biome-ignore lint/suspicious/noConfusingVoidType: the branches return what refuse and the handlers return, void included
export type Handled = void | Promise<unknown>;

/**
 * One request as the gate handles it, from its pipeline seat to its answer's close: how a refusal
 * is written (the envelope until the path is known to be tRPC's), what it was admitted as, and
 * what it holds. One object of one shape per request, in place of closures and argument lists:
 * everything it holds is given back by one `close` listener (`answerClosed`).
 */
export class Exchange implements RestTarget {
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

  /** The answer outlasts the send deadline: a CSV export, ended by its own deadline instead. */
  lasting(): void {
    this.sends.forget(this.outgoing);
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
export const EXCHANGE = Symbol('launchdex.exchange');
export type Answering = ServerResponse & { [EXCHANGE]?: Exchange };

/** The `close` listener of every answer: one function for all, no closure per request. */
export function answerClosed(this: ServerResponse): void {
  (this as Answering)[EXCHANGE]?.closed();
}

/**
 * Refuses an exchange in its transport's shape, with the RateLimit fields it was admitted with.
 * A body refused unread is read and dropped (up to a cap, then the connection is cut a second
 * after the answer): closing a socket with unread bytes makes the kernel send a reset, which can
 * reach the client before it has read the refusal.
 */
export function refuse(exchange: Exchange, error: AppError, headers?: Record<string, string>): void {
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
export function setRateLimitFields(outgoing: ServerResponse, decision: RateLimitDecision): void {
  outgoing.setHeader('ratelimit-policy', policyHeader(decision));
  outgoing.setHeader('ratelimit', rateLimitField(decision));
}

/** The Allow list of a policy: built only for the requests that state it (OPTIONS, 405). */
export function allowed(policy: RequestPolicy): string {
  return [...policy.methods, 'OPTIONS'].join(', ');
}

export function answerOptions(outgoing: ServerResponse, allow: string): void {
  outgoing.writeHead(204, { allow, 'cache-control': 'no-store' });
  outgoing.end();
}
