import { parseRetryAfter } from '../../../shared/http/retry-after';
import { readBounded } from '../../read-bounded';
import { IndexerError, type Retry } from '../errors';
import { type Answer, streamResult } from './result-stream';
/**
 * JSON-RPC over HTTP for the indexer: batched requests, a per-request timeout, and retries with
 * exponential backoff on rate limits (honouring Retry-After), 5xx, timeouts and connection
 * resets. JSON-RPC errors that mean "range too large" surface as {@link RpcRangeError} so the
 * sync can shrink its range instead of retrying the same request forever.
 */

/** The node failed or refused a request after the client's own retries: the step waits, then tries again. */
export class RpcError extends IndexerError {
  override name = 'RpcError';
  readonly retry: Retry = 'later';
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

/** The node refused a log query for its size (too many blocks or results): ask a smaller range at once. */
export class RpcRangeError extends RpcError {
  override name = 'RpcRangeError';
  override readonly retry: Retry = 'now';
}

const kib = (bytes: number) => `${Math.ceil(bytes / 1024).toLocaleString('en-US')} KiB`;

/** An answer larger than the client reads: ask for less (a smaller range). */
export class RpcResponseTooLargeError extends RpcRangeError {
  override name = 'RpcResponseTooLargeError';
  constructor(
    readonly limit: number,
    /** The answer's size when the server declared it (Content-Length). */
    readonly declaredBytes: number | undefined,
  ) {
    super(
      `response ${declaredBytes === undefined ? 'larger than' : `of ${kib(declaredBytes)}, over`} ${kib(limit)}; asking for a smaller range`,
    );
  }
}

export interface RpcClientOptions {
  url: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Base of the exponential backoff. */
  backoffMs?: number;
  /** Longest single wait, including a server's Retry-After. */
  maxBackoffMs?: number;
  fetch?: typeof fetch;
  /**
   * Largest response body read. A larger one is abandoned as it streams in and reported as a
   * range error, so eth_getLogs retries a smaller range: one dense range cannot take the
   * process's memory, whatever the range size.
   */
  maxResponseBytes?: number;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  sleep?: (ms: number) => Promise<void>;
}

export interface RpcRequest {
  method: string;
  params: unknown[];
}

export interface RpcClient {
  /**
   * `maxResponseBytes` overrides the client's limit for this request (Infinity: none). Batches
   * are not read against the limit: their count bounds them.
   */
  request<T>(method: string, params: unknown[], options?: { maxResponseBytes?: number }): Promise<T>;
  /** Sends the requests in one HTTP batch; results in request order. */
  batch<T>(requests: RpcRequest[]): Promise<T[]>;
  /**
   * Like `request` for a method whose result is an array of objects (eth_getLogs), but an answer
   * over the limit comes back as a stream of its elements instead of an error: the node has
   * already spent the time to build it, and the caller hands it on in parts as it arrives.
   * With `maxResponseBytes`, an answer over it is streamed too (the lower of it and the
   * client's limit applies).
   */
  requestOrStream?<T>(
    method: string,
    params: unknown[],
    options?: { maxResponseBytes?: number },
  ): Promise<Answer<T>>;
}

const rangeErrorPatterns = [
  /range/i,
  /too many/i,
  /limit exceeded/i,
  /response size/i,
  /query returned more than/i,
  /block range/i,
  /exceed/i,
];

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 2 ** 20;

/**
 * The body as text when it is within `limit` bytes, else a reader positioned after what was read
 * (`head`): the caller streams the rest.
 */
async function readOrKeepReading(
  response: Response,
  limit: number,
): Promise<
  | { text: string }
  | { reader: ReadableStreamDefaultReader<Uint8Array>; head: Uint8Array[]; declared: number | undefined }
> {
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  const declared = Number.isFinite(length) ? length : undefined;
  if (declared !== undefined && declared <= limit) return { text: await response.text() };
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const head: Uint8Array[] = [];
  if (declared !== undefined) return { reader, head, declared };
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(head, total).toString('utf8') };
    head.push(value);
    total += value.byteLength;
    if (total > limit) return { reader, head, declared };
  }
}

/** The body as text, or an RpcRangeError as soon as it exceeds `limit` bytes. */
async function readBody(response: Response, limit: number): Promise<string> {
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  const declared = Number.isFinite(length) ? length : undefined;
  const tooLarge = () => new RpcResponseTooLargeError(limit, declared);
  if (declared !== undefined && declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  // A declared length within the limit is read the runtime's way (no chunk-by-chunk loop here).
  if (declared !== undefined) return response.text();
  return (await readBounded(response.body, limit, tooLarge)).toString('utf8');
}

interface JsonRpcResponse {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

/** The HTTP client: it can also stream an answer too large to read whole. */
export type HttpRpcClient = RpcClient & Required<Pick<RpcClient, 'requestOrStream'>>;

export function createRpcClient(options: RpcClientOptions): HttpRpcClient {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRetries = options.maxRetries ?? 8;
  const backoffMs = options.backoffMs ?? 200;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const doFetch = options.fetch ?? fetch;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  let nextId = 1;

  /** The parsed answer, or with `stream`, a reader on an answer over the limit (see requestOrStream). */
  async function post(body: unknown, limit?: number): Promise<unknown>;
  async function post(
    body: unknown,
    limit: number,
    stream: true,
  ): Promise<
    | { parsed: unknown }
    | { reader: ReadableStreamDefaultReader<Uint8Array>; head: Uint8Array[]; declared: number | undefined }
  >;
  async function post(body: unknown, limit = maxResponseBytes, stream = false): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      let delay = Math.min(maxBackoffMs, backoffMs * 2 ** attempt);
      let reason: string;
      // The timeout covers the answer read whole; a streamed answer has its own between reads.
      const abort = new AbortController();
      const timer = setTimeout(
        () => abort.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')),
        timeoutMs,
      );
      try {
        const response = await doFetch(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: abort.signal,
        });
        if (response.ok) {
          let text: string;
          if (stream) {
            const read = await readOrKeepReading(response, limit);
            if (!('text' in read)) return read;
            text = read.text;
          } else text = await readBody(response, limit);
          try {
            const parsed: unknown = JSON.parse(text);
            return stream ? { parsed } : parsed;
          } catch {
            reason = 'malformed JSON response';
          }
        } else if (response.status === 429 || response.status >= 500) {
          reason = `HTTP ${response.status}`;
          const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
          if (retryAfter !== undefined) delay = Math.min(maxBackoffMs, retryAfter);
          await response.body?.cancel().catch(() => {});
        } else {
          const text = await response.text().catch(() => '');
          // Some providers answer an oversized range with 400/413 rather than a JSON-RPC error.
          if (rangeErrorPatterns.some((p) => p.test(text)))
            throw new RpcRangeError(`HTTP ${response.status}: ${text.slice(0, 200)}`);
          throw new RpcError(`HTTP ${response.status}: ${text.slice(0, 200)}`, response.status);
        }
      } catch (error) {
        if (error instanceof RpcError) throw error;
        reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      } finally {
        clearTimeout(timer);
      }
      if (attempt >= maxRetries) throw new RpcError(`RPC failed after ${attempt + 1} attempts: ${reason}`);
      options.onRetry?.({ attempt: attempt + 1, delayMs: delay, reason });
      await sleep(delay);
    }
  }

  function unwrap<T>(response: JsonRpcResponse | undefined, method: string): T {
    if (!response) throw new RpcError(`no response for ${method}`);
    if (response.error) {
      const { code, message } = response.error;
      if (method === 'eth_getLogs' && rangeErrorPatterns.some((p) => p.test(message)))
        throw new RpcRangeError(message, code);
      throw new RpcError(`${method}: ${message}`, code);
    }
    return response.result as T;
  }

  return {
    async request<T>(
      method: string,
      params: unknown[],
      requestOptions?: { maxResponseBytes?: number },
    ): Promise<T> {
      const id = nextId++;
      const response = (await post(
        { jsonrpc: '2.0', id, method, params },
        requestOptions?.maxResponseBytes,
      )) as JsonRpcResponse;
      return unwrap<T>(response, method);
    },
    async requestOrStream<T>(
      method: string,
      params: unknown[],
      requestOptions?: { maxResponseBytes?: number },
    ) {
      const id = nextId++;
      const limit = Math.min(maxResponseBytes, requestOptions?.maxResponseBytes ?? Number.POSITIVE_INFINITY);
      const answer = await post({ jsonrpc: '2.0', id, method, params }, limit, true);
      if ('parsed' in answer) return { whole: unwrap<T[]>(answer.parsed as JsonRpcResponse, method) };
      const stream = streamResult(answer.reader, answer.head, answer.declared, timeoutMs, (text) => {
        unwrap(JSON.parse(text) as JsonRpcResponse, method);
        throw new RpcError(`${method}: the answer holds no result array`);
      });
      return { stream };
    },
    async batch<T>(requests: RpcRequest[]): Promise<T[]> {
      if (requests.length === 0) return [];
      const firstId = nextId;
      nextId += requests.length;
      const body = requests.map((r, i) => ({
        jsonrpc: '2.0',
        id: firstId + i,
        method: r.method,
        params: r.params,
      }));
      // A batch is bounded by its count (the indexer's are 200 headers), not read against the limit.
      const responses = (await post(body, Number.POSITIVE_INFINITY)) as JsonRpcResponse[] | JsonRpcResponse;
      if (!Array.isArray(responses))
        throw new RpcError(
          `batch answered with a single response: ${JSON.stringify(responses).slice(0, 200)}`,
        );
      const byId = new Map(responses.map((r) => [r.id, r]));
      return requests.map((r, i) => unwrap<T>(byId.get(firstId + i), r.method));
    },
  };
}
