import { type ConcurrencyLimiter, countedHold } from '../concurrency';
import type { RateLimitDecision, RateLimiter } from '../rate-limit';
import type { AcquireRequest, LimitAnswers, LimitRequests, TakeRequest } from './protocol';

/** The worker's end of the IPC channel to its primary. */
export interface LimitChannel {
  send(requests: LimitRequests): void;
  onAnswers(listener: (answers: LimitAnswers) => void): void;
}

/** A worker's limits, counted by its primary for every worker at once. */
export interface WorkerLimits {
  rateLimiter: RateLimiter;
  concurrency: ConcurrencyLimiter;
  /** Gives back a slot the primary holds in this worker's name (a connection it handed over). */
  release(key: string): void;
}

export interface WorkerLimitsOptions {
  /** An unanswered request is let through after this long (the primary is stuck or gone). */
  timeoutMs?: number;
  /** Called with how many requests were let through unanswered. */
  onUnanswered?: (count: number) => void;
  /** When to send what a turn asked for; `setImmediate`: after this turn's I/O callbacks. */
  schedule?: (flush: () => void) => void;
}

type Decision = Omit<RateLimitDecision, 'bucket' | 'policy'>;
type Release = () => void;

/**
 * Rate buckets and capped slots kept by the primary, asked over `channel`. Everything one turn
 * of the event loop asks for travels in one message (a busy worker sends one per turn, not one
 * per request). When the primary does not answer within `timeoutMs`, requests are let through,
 * as with an unreachable Redis: the limiter protects capacity, and its outage should not become
 * an outage of the API. A slot granted after its request gave up waiting is given back at once.
 * @example const limits = createWorkerLimits(channel); await limits.rateLimiter.take('reads:203.0.113.9', policy, 1);
 */
export function createWorkerLimits(channel: LimitChannel, options: WorkerLimitsOptions = {}): WorkerLimits {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const schedule = options.schedule ?? ((flush) => setImmediate(flush));
  const takes = new Map<number, { resolve: (decision: Decision) => void; burst: number }>();
  const acquires = new Map<number, { key: string; resolve: (release: Release | undefined) => void }>();
  /** Acquires that gave up waiting: a late grant is released at once. */
  const abandoned = new Map<number, string>();
  const heldHere = new Map<string, number>();
  let batch: LimitRequests = { type: 'launchdex:limits', takes: [], acquires: [], releases: [] };
  let scheduled = false;
  let nextId = 0;

  const flush = () => {
    scheduled = false;
    const sent = batch;
    batch = { type: 'launchdex:limits', takes: [], acquires: [], releases: [] };
    channel.send(sent);
    if (sent.takes.length + sent.acquires.length === 0) return;
    setTimeout(() => giveUp(sent.takes, sent.acquires), timeoutMs).unref();
  };
  const enqueue = () => {
    if (scheduled) return;
    scheduled = true;
    schedule(flush);
  };

  const giveUp = (sentTakes: TakeRequest[], sentAcquires: AcquireRequest[]) => {
    let count = 0;
    for (const [id, , , burst] of sentTakes) {
      const waiting = takes.get(id);
      if (!waiting) continue;
      takes.delete(id);
      count++;
      waiting.resolve({ allowed: true, remaining: burst, resetMs: 0, retryAfterMs: 0 });
    }
    for (const [id, key] of sentAcquires) {
      const waiting = acquires.get(id);
      if (!waiting) continue;
      acquires.delete(id);
      abandoned.set(id, key);
      count++;
      waiting.resolve(() => {});
    }
    if (count > 0) options.onUnanswered?.(count);
  };

  const release = (key: string) => {
    batch.releases.push(key);
    enqueue();
  };

  const slotRelease = (key: string): Release => countedHold(heldHere, key, () => release(key));

  channel.onAnswers((answers) => {
    for (const [id, allowed, remaining, resetMs, retryAfterMs] of answers.takes) {
      const waiting = takes.get(id);
      if (!waiting) continue;
      takes.delete(id);
      waiting.resolve({ allowed: allowed === 1, remaining, resetMs, retryAfterMs });
    }
    for (const [id, granted] of answers.acquires) {
      const waiting = acquires.get(id);
      if (!waiting) {
        const key = abandoned.get(id);
        abandoned.delete(id);
        if (key !== undefined && granted === 1) release(key);
        continue;
      }
      acquires.delete(id);
      waiting.resolve(granted === 1 ? slotRelease(waiting.key) : undefined);
    }
  });

  return {
    rateLimiter: {
      take(key, policy, cost, mode) {
        return new Promise((resolve) => {
          const id = ++nextId;
          takes.set(id, { resolve, burst: policy.burst });
          batch.takes.push([id, key, policy.perMinute, policy.burst, cost, mode === 'charge' ? 1 : 0]);
          enqueue();
        });
      },
    },
    concurrency: {
      acquire(key, max) {
        return new Promise((resolve) => {
          const id = ++nextId;
          acquires.set(id, { key, resolve });
          batch.acquires.push([id, key, max]);
          enqueue();
        });
      },
      held: (key) => heldHere.get(key) ?? 0,
    },
    release,
  };
}
