import { restDispatcher } from '@/server/api/rest/registry';

export const dynamic = 'force-dynamic';

// Every /api/v1 route is declared in server/api/rest/registry.ts; this file only hands over.
const handle = (request: Request) => restDispatcher.handle(request);

export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };
