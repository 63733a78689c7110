/** What the client calls to send a request: `globalThis.fetch` unless another is given. */
export type Fetch = (request: Request) => Promise<Response>;

/** A wait the client is about to make: the server answered `status` with `Retry-After`. */
export interface RetryNotice {
  method: string;
  url: string;
  status: number;
  /** The attempt that was refused (1 for the first). */
  attempt: number;
  waitMs: number;
}

export interface RetryPolicy {
  /** Attempts per request, the first one included (default 5). */
  maxAttempts?: number;
  /**
   * The longest wait the client makes on its own (default 60 s). A longer Retry-After (a full
   * storage budget frees hours later) fails at once: waiting is then the caller's decision.
   */
  maxWaitMs?: number;
  onRetry?: (notice: RetryNotice) => void;
}

/** An answer the client could not turn into what was asked; `code` is the API's error code. */
export class LaunchdexError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  /** Requests sent for this call (more than 1 after waiting out Retry-After). */
  readonly attempts: number;

  constructor(message: string, status: number, code: string | undefined, attempts = 1) {
    super(message);
    this.name = 'LaunchdexError';
    this.status = status;
    this.code = code;
    this.attempts = attempts;
  }

  /** The error of an answer that is not a success, read from its `{error: {code, message}}` body. */
  static async read(response: Response, attempts = 1, why = ''): Promise<LaunchdexError> {
    const text = await response.text().catch(() => '');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return LaunchdexError.of(response, body, attempts, why);
  }

  /** The same from a body already read (openapi-fetch's `error`). */
  static of(response: Response, body: unknown, attempts = 1, why = ''): LaunchdexError {
    const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    const code = typeof error?.code === 'string' ? error.code : undefined;
    const message = typeof error?.message === 'string' ? error.message : String(body).slice(0, 200);
    const { pathname, search } = new URL(response.url || 'http://unknown/');
    return new LaunchdexError(
      `${pathname}${search}: ${response.status}${code ? ` ${code}` : ''}: ${message}${why}`,
      response.status,
      code,
      attempts,
    );
  }
}

/**
 * Milliseconds a 429 or 503 asks the client to wait (`Retry-After` in seconds, or an HTTP date);
 * undefined for any other answer, or one that does not say when to come back.
 */
export function retryAfterMs(response: Response, now = Date.now()): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const value = response.headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  // An IMF-fixdate (RFC 9110), never whatever else Date.parse would make a date of.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return undefined;
  return Math.max(0, Date.parse(value) - now);
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/**
 * `fetch` that sends a request again after the wait a 429 or 503 names in `Retry-After`, up to
 * `maxAttempts` in all. Reads are safe to repeat. A write may be too: a 429 refuses it before it
 * runs, and after a 503 (its database failing mid-request) the API's two writes bear repeating (a
 * finalize repeated answers as the first; an upload repeated makes a second draft of the same
 * `metadata_hash`). Past the attempts, or when the wait is longer than `maxWaitMs`, it throws
 * {@link LaunchdexError} naming the last answer.
 */
export function retryingFetch(send: Fetch, policy: RetryPolicy = {}): Fetch {
  const maxAttempts = policy.maxAttempts ?? 5;
  const maxWaitMs = policy.maxWaitMs ?? 60_000;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      // Each attempt sends a copy: a body can be read only once.
      const response = await send(request.clone());
      const waitMs = retryAfterMs(response);
      if (waitMs === undefined) return response;
      if (attempt >= maxAttempts)
        throw await LaunchdexError.read(
          response,
          attempt,
          ` (gave up after ${attempt} attempt${attempt === 1 ? '' : 's'})`,
        );
      if (waitMs > maxWaitMs)
        throw await LaunchdexError.read(
          response,
          attempt,
          ` (Retry-After ${waitMs / 1_000} s is longer than maxWaitMs ${maxWaitMs} ms)`,
        );
      await response.body?.cancel();
      policy.onRetry?.({
        method: request.method,
        url: request.url,
        status: response.status,
        attempt,
        waitMs,
      });
      await sleep(waitMs, request.signal);
    }
  };
}
