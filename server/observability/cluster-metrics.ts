import cluster from 'node:cluster';
import type { Registry } from 'prom-client';
import {
  isMetricsAnswer,
  isMetricsCollect,
  type MetricsAnswer,
  type MetricsCollected,
  type MetricsRequest,
} from '../http/cluster/protocol';

/** How long a scrape waits for the primary before it answers with this worker's metrics alone. */
const ANSWER_TIMEOUT_MS = 3_000;

/** What /api/metrics answers: the Prometheus text, its content type and how many workers it covers. */
export type MetricsScrape = () => Promise<{ text: string; contentType: string; workers: number }>;

/**
 * Scrapes `registry`, or, in a worker of `npm run serve --workers N`, every worker (prom-client's
 * aggregation: counters and histograms summed, block gauges by max), so a scrape of any worker
 * sees the whole server; falls back to this worker alone when the primary does not answer. In a
 * worker it answers the primary's requests for this worker's metrics from the moment it is built:
 * build it once per process (server/process does).
 */
export function createMetricsScrape(registry: Registry): MetricsScrape {
  const alone = async () => ({
    text: await registry.metrics(),
    contentType: registry.contentType,
    workers: 1,
  });
  if (!cluster.isWorker) return alone;
  const waiting = new Map<number, (answer: MetricsAnswer | undefined) => void>();
  let next = 1;
  process.on('message', (message: unknown) => {
    if (isMetricsCollect(message)) {
      void registry.getMetricsAsJSON().then((metrics) => {
        const reply: MetricsCollected = { type: 'launchdex:metrics-collected', id: message.id, metrics };
        if (process.connected) process.send?.(reply);
      });
    } else if (isMetricsAnswer(message)) {
      waiting.get(message.id)?.(message);
    }
  });
  return async () => {
    if (!process.send || !process.connected) return alone();
    const id = next++;
    const answer = await new Promise<MetricsAnswer | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), ANSWER_TIMEOUT_MS);
      waiting.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      const request: MetricsRequest = { type: 'launchdex:metrics-request', id };
      process.send?.(request);
    });
    waiting.delete(id);
    if (!answer) return alone();
    return { text: answer.text, contentType: registry.contentType, workers: answer.workers };
  };
}
