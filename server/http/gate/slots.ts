import type { WorkShares } from '../../api/database-share';
import type { Config } from '../../config';
import { AppError } from '../../errors';
import type { ConcurrencyLimiter } from '../concurrency';
import { refuse, type Stage } from './exchange';

/** An upload or stream slot of the client's (UPLOADS_PER_CLIENT, STREAMS_PER_CLIENT), held until the answer closes. */
export function clientSlots(concurrency: ConcurrencyLimiter, config: Config): Stage {
  return (exchange, policy) => {
    const kind = policy.concurrency;
    if (!kind) return true;
    const max = kind === 'uploads' ? config.http.uploadsPerClient : config.http.streamsPerClient;
    const held = (release: (() => void) | undefined) => {
      if (release) return exchange.hold('slot', release);
      refuse(
        exchange,
        new AppError(
          'rate_limited',
          `at most ${max} ${kind} at once per client; retry when one has finished`,
        ),
        { 'retry-after': '1' },
      );
      return false;
    };
    const release = concurrency.acquire(`${kind}:${exchange.client}`, max);
    return release instanceof Promise ? release.then(held) : held(release);
  };
}

/**
 * The client's share of the work (WORK_PER_CLIENT running, QUEUED_PER_CLIENT waiting), held until
 * the answer closes. Long-lived streams hold a slot instead.
 */
export function workShare(shares: WorkShares, config: Config): Stage {
  const { workPerClient, queuedPerClient } = config.http;
  return (exchange, policy) => {
    if (policy.readCost === 0 || policy.concurrency === 'streams') return true;
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
  };
}
