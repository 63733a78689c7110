import type { ExportCharge } from '../../api/rest/export';
import type { Config } from '../../config';
import { AppError } from '../../errors';
import { type RateLimitDecision, type RateLimiter, rateLimitHeaders, takeRateLimit } from '../rate-limit';
import { type Exchange, refuse, type Stage, setRateLimitFields } from './exchange';

/** How long a rate-limited request is held before its 429 (Retry-After is never below 1 s). */
const REFUSAL_DELAY_MS = 500;

/**
 * The rate buckets: a request costs its route's reads (a miss more, after its answer:
 * {@link chargeDatabaseRead}) and, for a write, one of its write bucket. Every decision's
 * RateLimit fields go out with the answer; a refused request waits for its 429 (the tarpit).
 * Synchronous with this process's limiter; a shared one (Redis, the cluster primary) is waited for.
 */
export function rateBuckets(limiter: RateLimiter, config: Config): Stage {
  function decided(
    exchange: Exchange,
    policy: Parameters<Stage>[1],
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
      return true;
    }
    const decisions: RateLimitDecision[] = [];
    if (reads) decisions.push(reads);
    if (writes) decisions.push(writes);
    const headers = combinedHeaders(decisions);
    for (const name in headers) outgoing.setHeader(name, headers[name] as string);
    const refused = decisions.find((d) => !d.allowed);
    return refused ? tarpit(exchange, refused, headers['retry-after'] ?? '1') : true;
  }

  /** After the reads bucket: the write bucket, if the route has one. */
  function counted(
    exchange: Exchange,
    policy: Parameters<Stage>[1],
    reads: RateLimitDecision | undefined,
  ): boolean | Promise<boolean> {
    if (!policy.writeBucket || (reads !== undefined && !reads.allowed))
      return decided(exchange, policy, reads, undefined);
    return Promise.resolve(takeRateLimit(limiter, config, policy.writeBucket, exchange.client, 1)).then(
      (writes) => decided(exchange, policy, reads, writes),
    );
  }

  return (exchange, policy) => {
    if (policy.readCost === 0) return counted(exchange, policy, undefined);
    const reads = takeRateLimit(limiter, config, 'reads', exchange.client, policy.readCost);
    if (reads instanceof Promise) return reads.then((decision) => counted(exchange, policy, decision));
    return counted(exchange, policy, reads);
  };
}

/**
 * A read the database answered costs READ_MISS_COST requests of the reads bucket, one of them
 * counted on admission: a client that asks for what nobody else does (varied limits, searches,
 * cursors) runs out of budget sooner than one that reads what is cached. The rest is charged
 * after the answer, into debt if the bucket is empty, so the client's next requests wait for it.
 */
export function chargeDatabaseRead(
  limiter: RateLimiter,
  config: Config,
  client: string,
): Promise<unknown> | undefined {
  const extra = config.readMissCost - 1;
  if (extra <= 0) return undefined;
  const charged = takeRateLimit(limiter, config, 'reads', client, extra, 'charge');
  return charged instanceof Promise ? charged : undefined;
}

/**
 * A CSV export's rows count against its client's reads bucket: one read per EXPORT_ROWS_PER_READ
 * rows, charged as each chunk is read, into debt as a miss is (server/api/rest/export.ts). The
 * charge answers how long the export waits before its next chunk: until that debt is repaid, so
 * an export runs at the pace of its own client's budget and leaves everyone else's alone.
 */
export function chargeExportRows(limiter: RateLimiter, config: Config): ExportCharge {
  return (client, rows) => {
    const reads = Math.ceil(rows / config.exports.rowsPerRead);
    const charged = takeRateLimit(limiter, config, 'reads', client, reads, 'charge');
    return charged instanceof Promise ? charged.then(debtMs) : debtMs(charged);
  };
}

/** How far past an empty bucket a charge left it, in ms (0 while the bucket still holds requests). */
function debtMs(decision: RateLimitDecision | undefined): number {
  if (!decision) return 0;
  const capacityMs = (decision.policy.burst * 60_000) / decision.policy.perMinute;
  return Math.max(0, decision.resetMs - capacityMs);
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

/** Every policy's fields in one header each (structured-field lists), and the longest Retry-After. */
export function combinedHeaders(decisions: RateLimitDecision[]): Record<string, string> {
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
