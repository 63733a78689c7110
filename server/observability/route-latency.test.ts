import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RouteLatency } from './route-latency';

const name = 'launchdex_http_request_duration_seconds';
const help = 'HTTP request latency by method, route template and status class';
const buckets = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Observations as [method, route, status, seconds], bounds and odd methods included. */
const observations: [string, string, number, number][] = [
  ['GET', '/api/v1/tokens/{address}', 200, 0.0015],
  ['GET', '/api/v1/tokens/{address}', 200, 0.002],
  ['GET', '/api/v1/tokens/{address}', 200, 0.0021],
  ['GET', '/api/v1/tokens/{address}', 304, 0.3],
  ['HEAD', '/api/v1/tokens/{address}', 200, 7],
  ['GET', 'unmatched', 404, 0.004],
  ['POST', '/api/v1/drafts', 201, 0.08],
  ['POST', '/api/v1/drafts', 429, 0.5],
  ['OPTIONS', '/api/v1/tokens', 204, 0.001],
  ['PATCH', '/api/v1/tokens', 405, 0.001],
  ['GET', '/api/trpc', 500, 5],
  // Methods of one route and status class are series of their own, whichever the methods.
  ['PUT', 'unmatched', 404, 0.003],
  ['DELETE', 'unmatched', 404, 0.02],
];

/** The same observations in prom-client's own histogram and in RouteLatency, each in a registry. */
function both() {
  const reference = new Registry();
  const histogram = new Histogram({
    name,
    help,
    labelNames: ['method', 'route', 'status'] as const,
    buckets,
    registers: [reference],
  });
  const ours = new Registry();
  const latency = new RouteLatency(name, help, buckets).register(ours);
  return {
    reference,
    ours,
    observe(method: string, route: string, status: number, seconds: number) {
      histogram.observe({ method, route, status: `${Math.floor(status / 100)}xx` }, seconds);
      latency.observe(method, route, status, seconds);
    },
    reset() {
      histogram.reset();
      latency.reset();
    },
  };
}

/** Exposition lines in a canonical order (series order is not part of the format). */
const lines = (text: string) => text.split('\n').filter(Boolean).sort();

describe('RouteLatency', () => {
  it('writes what prom-client writes for the same observations: names, labels, cumulative buckets, sum and count', async () => {
    const registries = both();
    for (const [method, route, status, seconds] of observations)
      registries.observe(method, route, status, seconds);
    const ours = await registries.ours.metrics();
    expect(lines(ours)).toEqual(lines(await registries.reference.metrics()));
    expect(ours).toContain(`${name}_count{method="GET",route="/api/v1/tokens/{address}",status="2xx"} 3`);
    // A value on a bound falls in that bound's bucket (le is "less or equal").
    expect(ours).toContain(
      `${name}_bucket{le="0.002",method="GET",route="/api/v1/tokens/{address}",status="2xx"} 2`,
    );
    // Every method keeps its own label.
    expect(ours).toContain(`${name}_count{method="PATCH",route="/api/v1/tokens",status="4xx"} 1`);
    expect(ours).toContain(`${name}_count{method="DELETE",route="unmatched",status="4xx"} 1`);
  });

  it('aggregates across cluster workers as prom-client histograms do (summed per series)', async () => {
    const workers = [both(), both()];
    for (const [index, [method, route, status, seconds]] of observations.entries())
      workers[index % 2]?.observe(method, route, status, seconds);
    workers[1]?.observe('GET', '/api/v1/tokens/{address}', 200, 0.01);
    const aggregate = async (pick: 'ours' | 'reference') =>
      (
        await AggregatorRegistry.aggregate(
          await Promise.all(workers.map((worker) => worker[pick].getMetricsAsJSON())),
        ).metrics()
      ).trim();
    expect(lines(await aggregate('ours'))).toEqual(lines(await aggregate('reference')));
  });

  it('forgets every series on reset', async () => {
    const registries = both();
    registries.observe('GET', 'unmatched', 404, 0.01);
    registries.reset();
    expect((await registries.ours.metrics()).trim()).toBe(`# HELP ${name} ${help}\n# TYPE ${name} histogram`);
  });
});
