import type { Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { isMetricsCollected, isMetricsRequest, type MetricsAnswer, type MetricsCollect } from './protocol';

/** How long the primary waits for every worker's metrics before it aggregates what came. */
const COLLECT_TIMEOUT_MS = 2_000;

interface Collection {
  asker: Worker;
  askerId: number;
  expected: number;
  /** Each worker's `registry.getMetricsAsJSON()`. */
  received: object[];
  timer: NodeJS.Timeout;
}

/**
 * The primary's side of a scrape (server/observability/cluster-metrics.ts): a worker asks, the
 * primary asks every serving worker for its registry, aggregates them with prom-client and
 * answers the asker. `handle` takes a cluster message and says whether it was one of these.
 */
export function createMetricsCollector(serving: () => Iterable<Worker>) {
  const collections = new Map<number, Collection>();
  let next = 1;

  function finish(id: number): void {
    const collection = collections.get(id);
    if (!collection) return;
    collections.delete(id);
    clearTimeout(collection.timer);
    void AggregatorRegistry.aggregate(collection.received)
      .metrics()
      .then((text) => {
        const answer: MetricsAnswer = {
          type: 'launchdex:metrics-answer',
          id: collection.askerId,
          text,
          workers: collection.received.length,
        };
        if (collection.asker.isConnected()) collection.asker.send(answer);
      });
  }

  return {
    handle(worker: Worker, message: unknown): boolean {
      if (isMetricsRequest(message)) {
        const id = next++;
        const workers = [...serving()].filter((w) => w.isConnected());
        if (!workers.includes(worker)) workers.push(worker);
        collections.set(id, {
          asker: worker,
          askerId: message.id,
          expected: workers.length,
          received: [],
          timer: setTimeout(() => finish(id), COLLECT_TIMEOUT_MS),
        });
        const collect: MetricsCollect = { type: 'launchdex:metrics-collect', id };
        for (const target of workers) target.send(collect);
        return true;
      }
      if (isMetricsCollected(message)) {
        const collection = collections.get(message.id);
        if (collection) {
          collection.received.push(message.metrics);
          if (collection.received.length >= collection.expected) finish(message.id);
        }
        return true;
      }
      return false;
    },
  };
}
