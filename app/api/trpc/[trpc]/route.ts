import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createRequestContext } from '@/server/api/context';
import { appRouter } from '@/server/api/root';
import { CLIENT_HEADER } from '@/server/http/database-share';
import { getLogger } from '@/server/logger';
import { observeRequest } from '@/server/observability/request-log';
import { TRPC_MAX_BATCH } from '@/shared/api/limits';

export const dynamic = 'force-dynamic';

// One histogram series for tRPC: procedure paths come from the client and would be unbounded labels.
const handler = (request: Request) =>
  observeRequest(
    request,
    () => '/api/trpc',
    () => handleTrpc(request),
  );

const handleTrpc = (request: Request) =>
  fetchRequestHandler({
    endpoint: '/api/trpc',
    req: request,
    router: appRouter,
    createContext: () => createRequestContext('http', request.headers.get(CLIENT_HEADER) ?? undefined),
    maxBatchSize: TRPC_MAX_BATCH,
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR')
        getLogger().error({ err: error.cause ?? error, path }, 'tRPC error');
    },
  });

export { handler as GET, handler as POST };
