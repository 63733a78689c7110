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

/** 0xx to 9xx: every status node:http can write (100-999) has a class of its own. */
const STATUS_CLASSES = 10;

/**
 * Request latency per method, route template and status class, exposed as the Prometheus
 * histogram `prom-client` writes (same names, labels, buckets and cluster aggregation). Every
 * answer records one observation, and prom-client's histogram spent more on it than the rest of
 * the request's metrics: a labels object, a key string and its hash per observation. Here the
 * method and the route template (constant strings, their hashes cached: node's parser knows a
 * bounded set of methods) find their series in two maps and the status class is an array
 * index: an observation allocates nothing.
 */
export class RouteLatency {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  /** Series by method, then route template, then status class. */
  private readonly methods = new Map<string, Map<string, (Series | undefined)[]>>();

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
    let routes = this.methods.get(method);
    if (!routes) {
      routes = new Map();
      this.methods.set(method, routes);
    }
    let slots = routes.get(route);
    if (!slots) {
      slots = new Array(STATUS_CLASSES).fill(undefined);
      routes.set(route, slots);
    }
    const statusClass = Math.floor(status / 100);
    let series = slots[statusClass];
    if (!series) {
      series = {
        labels: { method, route, status: `${statusClass}xx` },
        counts: new Float64Array(this.bounds.length + 1),
        sum: 0,
      };
      slots[statusClass] = series;
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > (this.bounds[bucket] as number)) bucket++;
    (series.counts[bucket] as number)++;
    series.sum += seconds;
  }

  /** Series as prom-client's histogram states them: cumulative buckets, +Inf, sum and count. */
  async get(): Promise<RouteLatencySnapshot> {
    const values: MetricValueWithName<string>[] = [];
    for (const routes of this.methods.values())
      for (const slots of routes.values())
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
    this.methods.clear();
  }
}
