import packageJson from '@/package.json' with { type: 'json' };
import { buildOpenApiDocument } from '@/server/api/rest/openapi';
import { restRoutes } from '@/server/api/rest/registry';

export const dynamic = 'force-static';

export function GET() {
  return Response.json(buildOpenApiDocument(restRoutes, { version: packageJson.version }), {
    headers: { 'cache-control': 'public, max-age=300' },
  });
}
