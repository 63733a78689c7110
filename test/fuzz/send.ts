import type { FuzzAnswer } from './oracle';
import type { FuzzRequest } from './request';

/** No request may hang the fuzzer: past this, the request counts as unanswered. */
const GIVE_UP_MS = 10_000;
/** Enough of the stream to know it started (the retry directive). */
const STREAM_BYTES = 16;

/**
 * Sends one request and reads its whole answer (the stream: its first bytes, then it hangs up),
 * timing it from the first byte sent to the last byte read.
 */
export async function sendRequest(
  fetcher: typeof fetch,
  baseUrl: string,
  request: FuzzRequest,
): Promise<FuzzAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer within ${GIVE_UP_MS} ms`)),
    GIVE_UP_MS,
  );
  const started = performance.now();
  try {
    const response = await fetcher(`${baseUrl}${request.target}`, {
      method: request.method,
      headers: request.headers ?? {},
      ...(request.body ? { body: request.body as Uint8Array<ArrayBuffer> } : {}),
      redirect: 'manual',
      signal: controller.signal,
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    let body = '';
    if (request.shape === 'stream' && response.status === 200 && response.body) {
      const reader = response.body.getReader();
      const chunks: Uint8Array[] = [];
      let length = 0;
      while (length < STREAM_BYTES) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        length += value.byteLength;
      }
      body = Buffer.concat(chunks).toString('utf8');
      const ms = performance.now() - started;
      controller.abort();
      await reader.cancel().catch(() => {});
      return { status: response.status, headers, body, ms };
    }
    body = await response.text();
    return { status: response.status, headers, body, ms: performance.now() - started };
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause;
    return {
      status: 0,
      headers: {},
      body: '',
      ms: performance.now() - started,
      failure: `${(error as Error).message}${cause ? ` (${cause.message})` : ''}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
