import type { Histogram, MetricValueWithName, Registry } from 'prom-client';

/** One series: a method, a route template and a status class, with its bucket counts. */
interface Series {
  labels: { method: string; route: string; status: string };
  /** Observations per bucket (not cumulative); the last slot is past every bound (+Inf). */
  counts: Float64Array;
  sum: number;
}

/** What the registry reads of the histogram: prom-client's shape of a metric and its values. */
export interface RouteLatencySnapshot {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: MetricValueWithName<string>[];
}

/** Methods with a slot of their own; any other (OPTIONS, a client's own) shares the last one. */
const METHODS = ['GET', 'HEAD', 'POST'] as const;
const STATUS_CLASSES = 6;

/**
 * Request latency per method, route template and status class, exposed as the Prometheus
 * histogram `prom-client` writes (same names, labels, buckets and cluster aggregation). Every
 * answer records one observation, and prom-client's histogram spent more on it than the rest of
 * the request's metrics: a labels object, a key string and its hash per observation. Here the
 * route template (a constant string, its hash cached) finds its series in a map and the method
 * and status class are array indexes: an observation allocates nothing.
 */
export class RouteLatency {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly routes = new Map<string, (Series | undefined)[]>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  /** Registers the histogram in `registry`, where prom-client's own would be. */
  register(registry: Registry): this {
    // The registry reads a metric through get() and reset() and its name; it stores what it is given.
    registry.registerMetric(this as unknown as Histogram);
    return this;
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let slots = this.routes.get(route);
    if (!slots) {
      slots = new Array((METHODS.length + 1) * STATUS_CLASSES).fill(undefined);
      this.routes.set(route, slots);
    }
    const methodSlot = METHODS.indexOf(method as (typeof METHODS)[number]);
    const statusSlot = Math.min(STATUS_CLASSES - 1, Math.max(0, Math.floor(status / 100)));
    const index = (methodSlot === -1 ? METHODS.length : methodSlot) * STATUS_CLASSES + statusSlot;
    let series = slots[index];
    if (!series) {
      series = {
        labels: { method, route, status: `${Math.floor(status / 100)}xx` },
        counts: new Float64Array(this.bounds.length + 1),
        sum: 0,
      };
      slots[index] = series;
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > (this.bounds[bucket] as number)) bucket++;
    (series.counts[bucket] as number)++;
    series.sum += seconds;
  }

  /** Series as prom-client's histogram states them: cumulative buckets, +Inf, sum and count. */
  async get(): Promise<RouteLatencySnapshot> {
    const values: MetricValueWithName<string>[] = [];
    for (const slots of this.routes.values())
      for (const series of slots) {
        if (!series) continue;
        let cumulative = 0;
        for (let bucket = 0; bucket < this.bounds.length; bucket++) {
          cumulative += series.counts[bucket] as number;
          values.push({
            labels: { le: this.bounds[bucket] as number, ...series.labels },
            value: cumulative,
            metricName: `${this.name}_bucket`,
          });
        }
        const count = cumulative + (series.counts[this.bounds.length] as number);
        values.push(
          { labels: { le: '+Inf', ...series.labels }, value: count, metricName: `${this.name}_bucket` },
          { labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` },
          { labels: { ...series.labels }, value: count, metricName: `${this.name}_count` },
        );
      }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }

  reset(): void {
    this.routes.clear();
  }
}
