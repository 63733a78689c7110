import { z } from 'zod';
import { errorResponse } from '@/server/api/rest/dispatch';
import { AppError } from '@/server/errors';
import { observeRequest } from '@/server/observability/request-log';
import { resumeBlock, retryDirective } from '@/server/stream/encode';
import { getStreamHub } from '@/server/stream/process-hub';
import { addressParam } from '@/shared/api/common';

export const dynamic = 'force-dynamic';

const streamQuery = z.object({ token: addressParam.optional() });

/**
 * Server-sent events of launches, trades and graduations as the index advances (docs/api.md,
 * "Live stream"). `token=` narrows to one token; Last-Event-ID (or `since=`) resumes.
 */
export function GET(request: Request) {
  return observeRequest(
    request,
    () => '/api/v1/stream',
    async () => {
      try {
        const url = new URL(request.url);
        const query = streamQuery.parse({ token: url.searchParams.get('token') ?? undefined });
        const hub = getStreamHub();
        const subscriber = await hub.subscribe({
          token: query.token,
          resumeFrom: resumeBlock(request.headers.get('last-event-id'), url.searchParams.get('since')),
          // The hub closes the subscriber (and frees its slot) when the client goes, even mid-replay.
          signal: request.signal,
        });
        if (!subscriber)
          throw new AppError(
            'unavailable',
            'too many live connections on this instance; retry shortly',
            undefined,
            {
              'retry-after': '5',
            },
          );
        subscriber.sendRaw(retryDirective(3_000));
        return new Response(subscriber.stream, {
          headers: {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-cache, no-transform',
            'x-accel-buffering': 'no',
          },
        });
      } catch (error) {
        return errorResponse(error);
      }
    },
  );
}
