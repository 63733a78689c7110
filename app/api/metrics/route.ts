import { timingSafeEqual } from 'node:crypto';
import { errorResponse } from '@/server/api/rest/dispatch';
import { getConfig } from '@/server/config';
import { AppError } from '@/server/errors';
import { scrapeMetrics } from '@/server/observability/cluster-metrics';

export const dynamic = 'force-dynamic';

function bearerMatches(header: string | null, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Prometheus text exposition of the server: this process, or with `--workers N` every worker
 * aggregated (the `launchdex-metrics-workers` header says how many answered). Not public: it exists only when METRICS_TOKEN is
 * set, and then answers only to `Authorization: Bearer <token>` (docs/security.md).
 */
export async function GET(request: Request) {
  const token = getConfig().metricsToken;
  if (!token) return errorResponse(new AppError('not_found', 'no route /api/metrics'));
  if (!bearerMatches(request.headers.get('authorization'), token))
    return errorResponse(
      new AppError('unauthorized', 'metrics need Authorization: Bearer <METRICS_TOKEN>', undefined, {
        'www-authenticate': 'Bearer realm="metrics"',
      }),
    );
  const { text, contentType, workers } = await scrapeMetrics();
  return new Response(text, {
    headers: {
      'content-type': contentType,
      'cache-control': 'no-store',
      'launchdex-metrics-workers': String(workers),
    },
  });
}
