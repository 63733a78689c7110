import { errorResponse } from '@/server/api/rest/dispatch';
import { AppError } from '@/server/errors';
import { observeRequest } from '@/server/observability/request-log';
import { resumePoint, retryDirective } from '@/server/stream/encode';
import { getStreamHub } from '@/server/stream/process-hub';
import { streamQuery } from '@/shared/api/stream';

export const dynamic = 'force-dynamic';

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
        const query = parseStreamQuery(new URL(request.url).searchParams);
        const hub = getStreamHub();
        const subscriber = await hub.subscribe({
          token: query.token,
          resumeFrom: resumePoint(request.headers.get('last-event-id'), query.since),
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

/** The query as the REST routes read theirs: a known parameter given twice is a 400, not a guess. */
function parseStreamQuery(search: URLSearchParams) {
  const input: Record<string, string> = {};
  for (const key of Object.keys(streamQuery.shape)) {
    const values = search.getAll(key);
    if (values.length > 1)
      throw new AppError('invalid_parameter', `${key} must be given at most once`, [
        { field: key, message: 'given more than once' },
      ]);
    if (values[0] !== undefined) input[key] = values[0];
  }
  return streamQuery.parse(input);
}
