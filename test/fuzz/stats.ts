import type { FuzzAnswer } from './oracle';
import { describeRequest, type FuzzRequest } from './request';

const MB = 1024 * 1024;

/** Tallies of a fuzz run, for its progress lines and final summary. */
export interface FuzzStats {
  requests: number;
  /** Requests of the warm-up pass, sent before the RSS baseline was taken (included in `requests`). */
  warmUpRequests: number;
  /** Requests per route class (`GET /api/v1/tokens/{address}`, `tRPC batch`, `page /`), by status class. */
  routes: Map<string, Map<string, number>>;
  /** tRPC calls per procedure name as sent (each call of a batch counts). */
  procedures: Map<string, number>;
  statuses: Map<number, number>;
  serverErrors: number;
  unanswered: number;
  slowest: { ms: number; request: string; status: number };
  /** Deviations worth a look that fail nothing (undocumented codes, refusals in another shape). */
  notes: Map<string, number>;
  rss: { start: number; end: number; max: number };
  startedAt: number;
  durationMs: number;
}

export function createStats(): FuzzStats {
  return {
    requests: 0,
    warmUpRequests: 0,
    routes: new Map(),
    procedures: new Map(),
    statuses: new Map(),
    serverErrors: 0,
    unanswered: 0,
    slowest: { ms: 0, request: '', status: 0 },
    notes: new Map(),
    rss: { start: 0, end: 0, max: 0 },
    startedAt: Date.now(),
    durationMs: 0,
  };
}

const bump = <K>(map: Map<K, number>, key: K, by = 1) => map.set(key, (map.get(key) ?? 0) + by);

export function recordAnswer(
  stats: FuzzStats,
  request: FuzzRequest,
  answer: FuzzAnswer,
  notes: readonly string[],
): void {
  stats.requests++;
  const classes = stats.routes.get(request.route) ?? new Map<string, number>();
  stats.routes.set(request.route, classes);
  bump(classes, answer.failure ? 'none' : `${Math.floor(answer.status / 100)}xx`);
  for (const path of request.trpc?.paths ?? [])
    bump(
      stats.procedures,
      /^[A-Za-z]+\.[A-Za-z]+$/.test(path) ? path : '(other names: empty, hostile, malformed)',
    );
  if (answer.failure) stats.unanswered++;
  else bump(stats.statuses, answer.status);
  if (answer.status >= 500) stats.serverErrors++;
  if (answer.ms > stats.slowest.ms)
    stats.slowest = { ms: answer.ms, request: describeRequest(request).slice(0, 300), status: answer.status };
  for (const note of notes) bump(stats.notes, note);
}

/** Counts per status class: `2xx`, `3xx`, `4xx`, `5xx`. */
export function statusClasses(stats: FuzzStats): Record<string, number> {
  const classes: Record<string, number> = {};
  for (const [status, count] of stats.statuses) {
    const key = `${Math.floor(status / 100)}xx`;
    classes[key] = (classes[key] ?? 0) + count;
  }
  return classes;
}

const sorted = (map: Map<string | number, number>) =>
  [...map.entries()].sort(([a], [b]) => String(a).localeCompare(String(b), 'en', { numeric: true }));
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

/** The transport a route class belongs to, for the summary's first breakdown. */
function transportOf(route: string): string {
  if (route === 'GET /api/v1/stream') return 'stream';
  if (route.startsWith('GET /api/v1/openapi.json')) return 'system';
  if (route.startsWith('GET /api/v1/')) return 'REST reads';
  if (route.startsWith('POST /api/v1/')) return 'REST writes';
  if (route.startsWith('tRPC ')) return 'tRPC';
  if (route.startsWith('GET /objects/')) return 'objects';
  if (route.startsWith('page ')) return 'pages';
  return 'system';
}

/** Requests and status classes per transport: `REST reads 13000 (2xx 6000, 4xx 7000)`. */
function byTransport(stats: FuzzStats): string[] {
  const totals = new Map<string, Map<string, number>>();
  for (const [route, classes] of stats.routes) {
    const transport = transportOf(route);
    const sum = totals.get(transport) ?? new Map<string, number>();
    totals.set(transport, sum);
    for (const [key, count] of classes) bump(sum, key, count);
  }
  return [...totals.entries()].map(([transport, classes]) => {
    const total = [...classes.values()].reduce((a, b) => a + b, 0);
    return `  ${String(total).padStart(6)}  ${transport} (${sorted(classes)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')})`;
  });
}

/** The final summary as printable lines. */
export function formatSummary(stats: FuzzStats, failures: readonly string[]): string[] {
  const lines = [
    `requests: ${stats.requests} (${stats.warmUpRequests} of them a warm-up pass before the RSS baseline) in ${(stats.durationMs / 1000).toFixed(1)} s (${(stats.requests / (stats.durationMs / 1000)).toFixed(0)}/s)`,
    `status classes: ${Object.entries(statusClasses(stats))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; 5xx: ${stats.serverErrors}; unanswered: ${stats.unanswered}`,
    `statuses: ${sorted(stats.statuses)
      .map(([k, v]) => `${k}×${v}`)
      .join(' ')}`,
    `slowest answer: ${stats.slowest.ms.toFixed(0)} ms (${stats.slowest.status}) ${stats.slowest.request}`,
    `server RSS: start (after the warm-up) ${mb(stats.rss.start)}, end ${mb(stats.rss.end)}, max ${mb(stats.rss.max)} (growth ${mb(stats.rss.max - stats.rss.start)})`,
    'requests per transport:',
    ...byTransport(stats),
    `tRPC calls: ${[...stats.procedures.values()].reduce((a, b) => a + b, 0)}`,
    'requests per route:',
    ...[...stats.routes.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([route, classes]) => {
        const total = [...classes.values()].reduce((sum, n) => sum + n, 0);
        const split = sorted(classes)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ');
        return `  ${String(total).padStart(6)}  ${route} (${split})`;
      }),
    'tRPC calls per procedure (as named in the request):',
    ...sorted(stats.procedures).map(([path, count]) => `  ${String(count).padStart(6)}  ${path}`),
  ];
  if (stats.notes.size > 0)
    lines.push(
      'notes (not failures):',
      ...sorted(stats.notes).map(([what, count]) => `  ${String(count).padStart(6)}  ${what}`),
    );
  lines.push(failures.length === 0 ? 'failures: none' : `failures: ${failures.length}`, ...failures);
  return lines;
}
