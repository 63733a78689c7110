import { encodeEvent } from './encode';
import { eventToken, type LiveEvent } from './events';

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
  close(): void;
  readonly closed: boolean;
}

export function createSubscriber(options: {
  token: string | undefined;
  maxQueued: number;
  onClose: () => void;
}): Subscriber {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    options.onClose();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel() {
        finish();
      },
    },
    new CountQueuingStrategy({ highWaterMark: options.maxQueued }),
  );
  const subscriber: Subscriber = {
    stream,
    token: options.token,
    get closed() {
      return closed;
    },
    send(event) {
      if (closed) return false;
      if (options.token !== undefined) {
        const token = eventToken(event);
        if (token !== null && token !== options.token) return true;
      }
      return subscriber.sendRaw(encodeEvent(event));
    },
    sendRaw(text) {
      if (closed || !controller) return false;
      if ((controller.desiredSize ?? 0) <= 0) {
        // Over the limit: one last event past it, then the door.
        controller.enqueue(
          encoder.encode(encodeEvent({ type: 'overflow', data: { reason: 'client too slow' } })),
        );
        subscriber.close();
        return false;
      }
      controller.enqueue(encoder.encode(text));
      return true;
    },
    close() {
      if (closed) return;
      try {
        controller?.close();
      } catch {
        // already errored or cancelled by the reader
      }
      finish();
    },
  };
  return subscriber;
}
