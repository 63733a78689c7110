import { errorResponse, matchesIfNoneMatch } from '../api/rest/dispatch';
import { AppError } from '../errors';
import { etagOfKey, isObjectKey } from './keys';
import type { ObjectStore } from './store';

const immutableHeaders = {
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
  // Objects are images shown by <img>; nothing in them may run, load or frame anything.
  'content-security-policy': "default-src 'none'; sandbox",
  'cross-origin-resource-policy': 'cross-origin',
};

/**
 * GET/HEAD /objects/<key>: the stored bytes with their stored type, immutable caching, a strong
 * ETag (the content hash) and 304 on If-None-Match. Unknown or malformed keys are 404.
 */
export async function serveObject(request: Request, key: string, store: ObjectStore): Promise<Response> {
  if (!isObjectKey(key)) return errorResponse(new AppError('not_found', 'no such object'));
  const etag = etagOfKey(key);
  const ifNoneMatch = request.headers.get('if-none-match');
  const head = request.method === 'HEAD';
  const object = await store.get(key, { head: head || ifNoneMatch !== null });
  if (!object) return errorResponse(new AppError('not_found', 'no such object'));
  const headers = { ...immutableHeaders, etag, 'content-type': object.contentType };
  if (matchesIfNoneMatch(request, etag)) {
    return new Response(null, { status: 304, headers });
  }
  if (head)
    return new Response(null, {
      status: 200,
      headers: { ...headers, 'content-length': String(object.size) },
    });
  const body = object.body ?? (await store.get(key))?.body;
  if (!body) return errorResponse(new AppError('not_found', 'no such object'));
  return new Response(new Uint8Array(body), {
    status: 200,
    headers: { ...headers, 'content-length': String(body.length) },
  });
}
