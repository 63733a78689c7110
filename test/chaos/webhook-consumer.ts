import type { Random } from '../../server/chain/simulator/random';
import { checkWebhookUrl } from '../../server/webhooks/target-url';
import { addWebhookTarget } from '../../server/webhooks/targets';
import { LEASE_MARGIN_MS } from '../../server/webhooks/worker';
import type { TestDatabase } from '../database';
import type { ChainView } from '../oracle/chain-view';
import type { Difference } from '../oracle/compare';
import type { Oracle } from '../oracle/model';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver';
import { compareConsumerWithOracle } from './stream-consumer';

/**
 * The chaos runs' webhook receiver: a loopback HTTP server registered as a target before the
 * indexer first runs, so every event of the seed is queued for it, one per POST or, by the seed,
 * in batches of up to 10 or 25 (a failed batch comes again whole). Its failures are seeded: down
 * for stretches (connections refused), and otherwise answering 500 (not applied) or applying an
 * event and never answering (the sender times out and sends it again: a duplicate) at random.
 * At the end it is up and answers every POST; once it has been quiet for chaosWebhookQuietMs the
 * outbox is drained, and what it holds (deduplicated by id, retractions applied) must equal the oracle.
 */
export interface ChaosWebhooks {
  readonly receiver: WebhookReceiver;
  readonly stats: {
    /** Events per POST at most (1: one each). */
    batchSize: number;
    posts: number;
    applied: number;
    duplicates: number;
    retractions: number;
    failed500: number;
    hung: number;
    downStretches: number;
  };
  /** One step of the scenario: may take the receiver down or bring it back. */
  step(): Promise<void>;
  /** Up and answering everything; resolves once no POST came for `quietMs`. */
  settle(quietMs: number, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** Settings that make a web process deliver to the loopback receiver, quickly retried. */
export const chaosWebhookEnv = {
  WEBHOOK_ALLOW_LOOPBACK: 'true',
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_MS: '1000',
};

/**
 * Quiet this long, the outbox is drained: a pending event is tried within a lease left by a
 * killed web process (POST deadline + LEASE_MARGIN_MS), the longest backoff and a poll.
 */
export const chaosWebhookQuietMs =
  Number(chaosWebhookEnv.WEBHOOK_TIMEOUT_MS) +
  LEASE_MARGIN_MS +
  Number(chaosWebhookEnv.WEBHOOK_RETRY_MAX_MS) +
  1_000;

export async function startChaosWebhooks(database: TestDatabase, random: Random): Promise<ChaosWebhooks> {
  const receiver = await startWebhookReceiver();
  const failRate = random.pick([0, 0.05, 0.15]);
  const hangRate = random.pick([0, 0.02, 0.05]);
  const batchSize = random.pick([1, 10, 25]);
  receiver.answer = () => {
    const roll = random.next();
    return roll < failRate ? 'fail' : roll < failRate + hangRate ? 'hang' : 'ok';
  };
  // A PGlite directory admits one process: the target is added before the indexer opens it.
  const handle = await database.open();
  try {
    const url = checkWebhookUrl(receiver.url, { allowLoopback: true }).toString();
    receiver.secret = (
      await addWebhookTarget(handle.db, {
        url,
        tokenAddress: null,
        events: ['trade', 'launch', 'graduation'],
        batchSize,
      })
    ).secret;
  } finally {
    await handle.close();
  }
  let down = false;
  let downStretches = 0;
  return {
    receiver,
    get stats() {
      const ids = receiver.applied.map((event) => event.id);
      return {
        batchSize,
        posts: receiver.requests.length,
        applied: receiver.applied.length,
        duplicates: ids.length - new Set(ids).size,
        retractions: receiver.applied.filter((event) => event.type === 'retraction').length,
        failed500: receiver.requests.filter((r) => r.answer === 'fail').length,
        hung: receiver.requests.filter((r) => r.answer === 'hang').length,
        downStretches,
      };
    },
    async step() {
      if (!down && random.chance(0.04)) {
        down = true;
        downStretches++;
        await receiver.setDown(true);
      } else if (down && random.chance(0.25)) {
        down = false;
        await receiver.setDown(false);
      }
    },
    async settle(quietMs, timeoutMs) {
      receiver.answer = () => 'ok';
      down = false;
      await receiver.setDown(false);
      const started = Date.now();
      let seen = -1;
      let quietSince = Date.now();
      while (Date.now() - quietSince < quietMs) {
        if (Date.now() - started > timeoutMs) throw new Error('webhook deliveries did not settle');
        if (receiver.requests.length !== seen) {
          seen = receiver.requests.length;
          quietSince = Date.now();
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop: () => receiver.close(),
  };
}

/** What the receiver holds (deduplicated, retractions applied) against the oracle. */
export function compareReceiverWithOracle(
  hooks: ChaosWebhooks,
  oracle: Oracle,
  view: ChainView,
): Difference[] {
  const held = [...hooks.receiver.held().values()];
  const of = (kind: string) => held.flatMap((event) => (event.type === kind ? [event.data] : []));
  return compareConsumerWithOracle({ of }, oracle, view, 'webhook receiver (chaos)');
}
