import { getConfig } from '@/server/config';
import { serveObject } from '@/server/objects/serve';
import { getObjectStore } from '@/server/objects/store';
import { observeRequest } from '@/server/observability/request-log';

export const dynamic = 'force-dynamic';

// The key is the one path segment after /objects/; anything with more segments is not a key.
async function handle(request: Request, { params }: { params: Promise<{ key: string[] }> }) {
  return observeRequest(
    request,
    () => '/objects/{key}',
    async () => {
      const { key } = await params;
      const config = getConfig();
      return serveObject(
        request,
        key.length === 1 ? (key[0] as string) : '',
        await getObjectStore(config.objects),
      );
    },
  );
}

export { handle as GET, handle as HEAD };
