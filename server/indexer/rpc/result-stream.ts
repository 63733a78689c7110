/**
 * Reading a JSON-RPC answer's `result` array as it arrives, for answers too large to hold whole
 * (an eth_getLogs over a dense stretch): the elements come out in batches, each parsed on its
 * own, while the rest of the body is still in the socket.
 */

/** The array an answer's `result` holds, in batches as it arrives. */
export interface ResultStream {
  /** The whole answer's size, when the node declared it (Content-Length). */
  readonly declaredBytes: number | undefined;
  /** The next batch of elements, in order; undefined once the array has ended. */
  next(): Promise<unknown[] | undefined>;
  /** Stops reading; the rest of the answer is never read. */
  cancel(): Promise<void>;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;

/**
 * A scanner over the text of `{"jsonrpc":…,"id":…,"result":[{…},{…}]}` fed in pieces: returns
 * the text of the elements of the result array (objects, as eth_getLogs answers hold) each
 * piece completes, as they stand in the answer (comma-separated), to be parsed at once. The
 * only array directly in a JSON-RPC answer is its result; an object there is an `error`,
 * reported by `failed` (the caller then reads the answer whole).
 */
export function createResultScanner() {
  let depth = 0;
  let inString = false;
  /** The next character, in this piece or the next, is escaped (inside a string). */
  let escaped = false;
  let state: 'before' | 'array' | 'after' | 'error' = 'before';
  /** An element begun in an earlier piece. */
  let partial = '';
  return {
    /** The elements `piece` completes, comma-separated; '' when it completes none. */
    push(piece: string): string {
      const text = partial + piece;
      /** Where the first element completed here begins, the one being read, and after the last. */
      let first = partial.length > 0 ? 0 : -1;
      let start = first;
      let end = -1;
      let backslash = -1;
      let i = partial.length;
      while (i < text.length) {
        if (inString) {
          // Jump to the string's end: strings are most of a log's text (hex), and a character
          // loop over them was most of the scanner's time.
          if (escaped) {
            escaped = false;
            i++;
            continue;
          }
          if (backslash < i) {
            backslash = text.indexOf('\\', i);
            if (backslash === -1) backslash = text.length;
          }
          const quote = text.indexOf('"', i);
          const close = quote === -1 ? text.length : quote;
          if (backslash < close) {
            escaped = true;
            i = backslash + 1;
          } else {
            if (quote !== -1) inString = false;
            i = close + 1;
          }
          continue;
        }
        const c = text.charCodeAt(i);
        if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          if (depth === 1 && state === 'before') state = c === OPEN_BRACKET ? 'array' : 'error';
          else if (depth === 2 && state === 'array') {
            start = i;
            if (first === -1) first = i;
          }
          depth++;
        } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          depth--;
          if (depth === 2 && state === 'array' && start >= 0) {
            end = i + 1;
            start = -1;
          } else if (depth === 1 && state === 'array') state = 'after';
        }
        i++;
      }
      partial = start >= 0 ? text.slice(start) : '';
      return end === -1 ? '' : text.slice(first, end);
    },
    /** The result array has begun (or the answer turned out to be an error). */
    get started() {
      return state !== 'before';
    },
    /** The answer holds an object, not an array, beside its id: an error. */
    get failed() {
      return state === 'error';
    },
    /** The result array has ended. */
    get ended() {
      return state === 'after';
    },
  };
}

/** Characters of elements handed out per batch (about; a batch ends on an element). */
const BATCH_CHARS = 1 << 20;
/** An error answer, or the envelope before the result, is never longer than this. */
const MAX_ENVELOPE_CHARS = 1 << 20;

/**
 * A ResultStream over `reader`, the answer's body with `head` already read from it. A read that
 * waits longer than `idleMs` for the node fails the stream. An answer that turns out to be an
 * error is read whole and passed to `onError`, which throws.
 */
export function streamResult(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  head: Uint8Array[],
  declaredBytes: number | undefined,
  idleMs: number,
  onError: (answer: string) => never,
): ResultStream {
  const decoder = new TextDecoder();
  const scanner = createResultScanner();
  const queued = [...head];
  let finished = false;
  /** Runs of complete elements not handed out yet. */
  let runs: string[] = [];
  /** The text before the array begins: the envelope, or all of an error answer. */
  let envelope = '';

  const read = async (): Promise<Uint8Array | undefined> => {
    const next = queued.shift();
    if (next) return next;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the RPC node sent nothing for ${idleMs} ms`)), idleMs);
    });
    try {
      const { done, value } = await Promise.race([reader.read(), idle]);
      return done ? undefined : value;
    } catch (error) {
      await reader.cancel().catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    declaredBytes,
    async next() {
      let chars = 0;
      while (!finished && chars < BATCH_CHARS) {
        const chunk = await read();
        if (!chunk) finished = true;
        const text = chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
        if (!scanner.started || scanner.failed) {
          envelope += text;
          if (envelope.length > MAX_ENVELOPE_CHARS) {
            await reader.cancel().catch(() => {});
            throw new Error('the RPC answer holds no result array where one was expected');
          }
        }
        const run = scanner.push(text);
        if (run) {
          runs.push(run);
          chars += run.length;
        }
      }
      if (finished && !scanner.ended) {
        if (!scanner.started || scanner.failed) onError(envelope);
        throw new Error('the RPC answer ended inside its result array');
      }
      if (runs.length === 0) return undefined;
      const batch = JSON.parse(`[${runs.join(',')}]`) as unknown[];
      runs = [];
      return batch;
    },
    async cancel() {
      finished = true;
      await reader.cancel().catch(() => {});
    },
  };
}

/** An answer read whole, or one being read as it arrives (RpcClient.requestOrStream). */
export type Answer<T> = { whole: T[] } | { stream: ResultStream };

/**
 * The elements of several answers, one after the other, as one stream: an answer read whole is
 * one batch, a streamed one its batches. All the answers are already requested; a failed one
 * fails the stream when its turn comes, and `cancel` stops those still streaming or to come (as
 * they arrive).
 */
export function concatAnswers<T>(answers: readonly Promise<Answer<T>>[]): ResultStream {
  // Rejections surface in next(), in order; one never reached must not go unhandled.
  for (const answer of answers) answer.catch(() => {});
  let index = 0;
  let cancelled = false;
  return {
    declaredBytes: undefined,
    async next() {
      while (!cancelled && index < answers.length) {
        const answer = await (answers[index] as Promise<Answer<T>>);
        if ('whole' in answer) {
          index++;
          if (answer.whole.length > 0) return answer.whole;
          continue;
        }
        const batch = await answer.stream.next();
        if (batch) return batch;
        index++;
      }
      return undefined;
    },
    async cancel() {
      cancelled = true;
      // Not awaited: an answer still to come may be in its retries.
      for (const answer of answers.slice(index))
        void answer.then(
          (a) => ('stream' in a ? a.stream.cancel() : undefined),
          () => {},
        );
    },
  };
}
