import { AppError } from '../errors';
import { readBounded } from '../read-bounded';

const MAX_JSON_BYTES = 16 * 1024;

/**
 * Reads a small JSON request body: 415 for another media type, 413 past `maxBytes` (16 KiB by
 * default) without buffering the rest, 400 for bad JSON.
 */
export async function readJsonBody(
  request: Request,
  { maxBytes = MAX_JSON_BYTES }: { maxBytes?: number } = {},
): Promise<unknown> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType))
    throw new AppError('unsupported_media_type', 'send application/json');
  if (!request.body) throw new AppError('invalid_parameter', 'empty body');
  const body = await readBounded(
    request.body,
    maxBytes,
    () => new AppError('payload_too_large', `JSON body exceeds ${maxBytes} bytes`),
  );
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError('invalid_parameter', 'body is not valid JSON');
  }
}
