import { type LiveEvent, passesTokenFilter } from '../../shared/stream/events';
import { encodeEvent } from './encode';

/**
 * One connected client: a byte stream with a bounded queue. A client that does not read (a
 * stalled tab, a slow proxy) must not make the server buffer without limit: past `maxQueued`
 * undelivered chunks it gets an `overflow` event and is closed; EventSource reconnects and
 * resumes from its last checkpoint.
 */
export interface Subscriber {
  readonly stream: ReadableStream<Uint8Array>;
  /** Only this token's launch/trade/graduation events (lowercase), or all. */
  readonly token: string | undefined;
  /** Queues an event if it concerns this subscriber; false once the subscriber is closed. */
  send(event: LiveEvent): boolean;
  sendRaw(text: string): boolean;
  /** Ends the subscriber at once: what is still queued is dropped. Idempotent. */
  close(): void;
  readonly closed: boolean;
  /**
   * Chunks held for the reader: at most `maxQueued` while open; once closed, none, or only the
   * final `overflow` until the reader takes it.
   */
  readonly queued: number;
}

export interface CreateSubscriberOptions {
  token: string | undefined;
  maxQueued: number;
  /** The request's signal: a client that goes away closes its subscriber, whenever that happens. */
  signal?: AbortSignal;
  /**
   * Called exactly once, when the subscriber ends, whichever way: `close()`, overflow, the reader
   * cancelling the stream or the signal aborting (also when it already was: then during
   * `createSubscriber` itself, hence the argument).
   */
  onClose: (subscriber: Subscriber) => void;
}

const overflowFrame = new TextEncoder().encode(
  encodeEvent({ type: 'overflow', data: { reason: 'client too slow' } }),
);

/**
 * A subscriber whose every way of ending goes through one function that drops its queue, detaches
 * it from the request and calls `onClose` once. The stream is pulled (high-water mark 0): a chunk
 * is handed to the reader only when it asks, so everything undelivered sits in `queue`, which is
 * what the limit counts and what closing frees.
 *
 * @example
 * const subscriber = createSubscriber({ token: undefined, maxQueued: 1000, signal, onClose: release });
 * subscriber.send({ type: 'checkpoint', data: { indexed_through_block: 42 } });
 * return new Response(subscriber.stream);
 */
export function createSubscriber(options: CreateSubscriberOptions): Subscriber {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let queue: Uint8Array[] = [];
  let closed = false;
  // The reader asked for a chunk that was not there yet.
  let readerWaiting = false;
  // The byte stream itself is closed or cancelled: the controller takes nothing more.
  let streamEnded = false;

  const flush = () => {
    if (streamEnded || !controller) return;
    if (readerWaiting && queue.length > 0) {
      readerWaiting = false;
      controller.enqueue(queue.shift() as Uint8Array);
    }
    if (closed && queue.length === 0) {
      streamEnded = true;
      controller.close();
    }
  };

  /** The one way a subscriber ends. `farewell` is the only chunk kept for the reader. */
  const end = (farewell?: Uint8Array) => {
    if (closed) return;
    closed = true;
    options.signal?.removeEventListener('abort', onAbort);
    queue = farewell ? [farewell] : [];
    flush();
    options.onClose(subscriber);
  };
  const onAbort = () => end();

  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        readerWaiting = true;
        flush();
      },
      cancel() {
        streamEnded = true;
        end();
      },
    },
    { highWaterMark: 0 },
  );

  const subscriber: Subscriber = {
    stream,
    token: options.token,
    get closed() {
      return closed;
    },
    get queued() {
      return queue.length;
    },
    send(event) {
      if (closed) return false;
      if (!passesTokenFilter(event, options.token)) return true;
      return subscriber.sendRaw(encodeEvent(event));
    },
    sendRaw(text) {
      if (closed) return false;
      queue.push(encoder.encode(text));
      flush();
      if (queue.length > options.maxQueued) {
        // Over the limit: what it has not read is dropped (it resumes from its last checkpoint
        // anyway), one last event says why, then the door.
        end(overflowFrame);
        return false;
      }
      return true;
    },
    close() {
      end();
    },
  };

  if (options.signal?.aborted) end();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return subscriber;
}
