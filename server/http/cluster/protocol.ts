/**
 * Messages between the primary of `npm run serve --workers N` and its workers, over the cluster's
 * IPC channel. Limit requests are batched: a worker sends what one turn of its event loop asked
 * for in one message and gets one answer, so the channel's cost is per turn, not per request.
 */

/** `[id, key, perMinute, burst, cost, charge]`: count `cost` requests in a GCRA bucket (charge: 1 counts it even past the burst). */
export type TakeRequest = [
  id: number,
  key: string,
  perMinute: number,
  burst: number,
  cost: number,
  charge: 0 | 1,
];
/** `[id, allowed, remaining, resetMs, retryAfterMs]`. */
export type TakeAnswer = [
  id: number,
  allowed: 0 | 1,
  remaining: number,
  resetMs: number,
  retryAfterMs: number,
];
/** `[id, key, max]`: hold one of `max` slots of `key` until released. */
export type AcquireRequest = [id: number, key: string, max: number];
/** `[id, granted]`. */
export type AcquireAnswer = [id: number, granted: 0 | 1];

/** Worker → primary: what one turn of the worker's event loop asked for. */
export interface LimitRequests {
  type: 'launchdex:limits';
  takes: TakeRequest[];
  acquires: AcquireRequest[];
  /** Keys of slots given back (one entry per slot; a key may repeat). */
  releases: string[];
}

/** Primary → worker: the answers to one {@link LimitRequests}. */
export interface LimitAnswers {
  type: 'launchdex:limits';
  takes: TakeAnswer[];
  acquires: AcquireAnswer[];
}

/** Worker → primary: the worker serves (its app is prepared and it takes connections). */
export interface WorkerReady {
  type: 'launchdex:ready';
}

/**
 * Primary → worker, with a paused client socket as the handle: serve it. `slot` is the
 * connection's slot in the per-address count, released (as a slot key) when the socket closes.
 */
export interface ConnectionHandoff {
  type: 'launchdex:connection';
  slot: string;
}

function typed(message: unknown, type: string): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

export const isLimitRequests = (message: unknown): message is LimitRequests =>
  typed(message, 'launchdex:limits') && Array.isArray((message as LimitRequests).releases);
export const isLimitAnswers = (message: unknown): message is LimitAnswers =>
  typed(message, 'launchdex:limits') && !Array.isArray((message as LimitRequests).releases);
export const isWorkerReady = (message: unknown): message is WorkerReady => typed(message, 'launchdex:ready');
export const isConnectionHandoff = (message: unknown): message is ConnectionHandoff =>
  typed(message, 'launchdex:connection') && typeof (message as ConnectionHandoff).slot === 'string';

/** Worker → primary: the metrics of every worker, for the `/api/metrics` scrape it answers. */
export interface MetricsRequest {
  type: 'launchdex:metrics-request';
  id: number;
}

/** Primary → every worker: send your registry's metrics (as prom-client JSON). */
export interface MetricsCollect {
  type: 'launchdex:metrics-collect';
  id: number;
}

/** Worker → primary: one worker's metrics for collection `id`. */
export interface MetricsCollected {
  type: 'launchdex:metrics-collected';
  id: number;
  metrics: unknown[];
}

/** Primary → the asking worker: every worker's metrics aggregated, in Prometheus text. */
export interface MetricsAnswer {
  type: 'launchdex:metrics-answer';
  id: number;
  text: string;
  /** Workers whose metrics are in the text, of those serving. */
  workers: number;
}

export const isMetricsRequest = (message: unknown): message is MetricsRequest =>
  typed(message, 'launchdex:metrics-request');
export const isMetricsCollect = (message: unknown): message is MetricsCollect =>
  typed(message, 'launchdex:metrics-collect');
export const isMetricsCollected = (message: unknown): message is MetricsCollected =>
  typed(message, 'launchdex:metrics-collected') && Array.isArray((message as MetricsCollected).metrics);
export const isMetricsAnswer = (message: unknown): message is MetricsAnswer =>
  typed(message, 'launchdex:metrics-answer') && typeof (message as MetricsAnswer).text === 'string';
