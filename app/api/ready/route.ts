import { checkReadiness } from '@/server/health';

export const dynamic = 'force-dynamic';

export async function GET() {
  const readiness = await checkReadiness();
  return Response.json(readiness, {
    status: readiness.status === 'ready' ? 200 : 503,
    headers: { 'cache-control': 'no-store' },
  });
}
