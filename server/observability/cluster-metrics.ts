import cluster from 'node:cluster';
import {
  isMetricsAnswer,
  isMetricsCollect,
  type MetricsAnswer,
  type MetricsCollected,
  type MetricsRequest,
} from '../http/cluster/protocol';
import { getProcessMetrics } from './process-metrics';

/** How long a scrape waits for the primary before it answers with this worker's metrics alone. */
const ANSWER_TIMEOUT_MS = 3_000;

interface ClusterMetricsState {
  next: number;
  waiting: Map<number, (answer: MetricsAnswer | undefined) => void>;
}

const slot: { clusterMetrics?: ClusterMetricsState } = {};

function state(): ClusterMetricsState {
  if (!slot.clusterMetrics) {
    const created: ClusterMetricsState = { next: 1, waiting: new Map() };
    slot.clusterMetrics = created;
    process.on('message', (message: unknown) => {
      if (isMetricsCollect(message)) {
        void getProcessMetrics()
          .registry.getMetricsAsJSON()
          .then((metrics) => {
            const reply: MetricsCollected = {
              type: 'launchdex:metrics-collected',
              id: message.id,
              metrics,
            };
            if (process.connected) process.send?.(reply);
          });
      } else if (isMetricsAnswer(message)) {
        created.waiting.get(message.id)?.(message);
      }
    });
  }
  return slot.clusterMetrics;
}

/**
 * In a worker of `npm run serve --workers N`, answers the primary's requests for this worker's
 * metrics. Call once when the worker starts (it is idempotent).
 */
export function answerClusterMetrics(): void {
  if (cluster.isWorker) state();
}

/**
 * The Prometheus text of this process, or, in a cluster worker, of every worker (prom-client's
 * aggregation: counters and histograms summed, block gauges by max), so a scrape of any worker
 * sees the whole server. Falls back to this worker alone when the primary does not answer.
 */
export async function scrapeMetrics(): Promise<{ text: string; contentType: string; workers: number }> {
  const { registry } = getProcessMetrics();
  const alone = async () => ({
    text: await registry.metrics(),
    contentType: registry.contentType,
    workers: 1,
  });
  if (!cluster.isWorker || !process.send || !process.connected) return alone();
  const shared = state();
  const { waiting } = shared;
  const id = shared.next++;
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
}
