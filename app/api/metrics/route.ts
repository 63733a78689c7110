import { getProcessMetrics } from '@/server/observability/process-metrics';

export const dynamic = 'force-dynamic';

/** Prometheus text exposition of this process (restrict it at the proxy in production). */
export async function GET() {
  const { registry } = getProcessMetrics();
  return new Response(await registry.metrics(), {
    headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' },
  });
}
