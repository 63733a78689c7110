import { readIndexedThroughBlock } from '../api/routers/tokens/rows';
import type { Database } from '../db/client';
import { encodeEvent, heartbeat } from './encode';
import type { LiveEvent } from './events';
import { readIndexChanges } from './read-changes';
import { createSubscriber, type Subscriber } from './subscriber';

export interface StreamHubOptions {
  db: () => Promise<Database>;
  pollMs: number;
  heartbeatMs: number;
  maxQueued: number;
  maxClients: number;
  /** Most events one advance (or one resume) sends in detail; beyond it clients get `reset`. */
  maxEventsPerAdvance?: number;
  /** A resume from further back than this many blocks gets `reset` instead of a replay. */
  maxResumeBlocks?: number;
  onError?: (error: unknown) => void;
}

export interface StreamHub {
  /** Null when the process is at its connection limit. */
  subscribe(options: {
    token: string | undefined;
    resumeFrom: number | undefined;
  }): Promise<Subscriber | null>;
  readonly subscribers: number;
  /** Whether the checkpoint poller runs (only while someone listens). */
  readonly polling: boolean;
}

/**
 * Fans the index's progress out to every connected stream of this process. One poller reads the
 * checkpoint every `pollMs` while anyone listens; when it advances it reads the new blocks'
 * launches, trades and graduations once and sends each subscriber what concerns it, then a
 * checkpoint. It reads only PostgreSQL, so N web instances and a separate indexer need no
 * broker between them.
 */
export function createStreamHub(options: StreamHubOptions): StreamHub {
  const subscribers = new Set<Subscriber>();
  const maxEvents = options.maxEventsPerAdvance ?? 5_000;
  const maxResume = options.maxResumeBlocks ?? 1_000;
  let indexed: number | undefined;
  let pollTimer: ReturnType<typeof setInterval> | undefined;
  let heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  let polling = false;
  let starting: Promise<void> | undefined;
  // Subscribers still replaying: the poller must not stop under them.
  let joining = 0;

  const broadcast = (events: LiveEvent[]) => {
    for (const subscriber of subscribers) for (const event of events) if (!subscriber.send(event)) break;
  };

  const poll = async () => {
    if (polling || indexed === undefined) return;
    polling = true;
    try {
      const db = await options.db();
      const current = await readIndexedThroughBlock(db);
      const previous = indexed;
      if (current > previous) {
        const changes = await readIndexChanges(db, previous, current, maxEvents);
        // Fan-out and the new position are one synchronous step: a subscriber added after it
        // replays up to `indexed` and misses nothing.
        indexed = current;
        broadcast(
          changes.truncated
            ? [{ type: 'reset', data: { indexed_through_block: current, reason: 'too many events at once' } }]
            : [...changes.events, { type: 'checkpoint', data: { indexed_through_block: current } }],
        );
      } else if (current < previous) {
        indexed = current;
        broadcast([{ type: 'reorg', data: { indexed_through_block: current } }]);
      }
    } catch (error) {
      options.onError?.(error);
    } finally {
      polling = false;
    }
  };

  const start = () => {
    starting ??= (async () => {
      indexed = await readIndexedThroughBlock(await options.db());
      pollTimer = setInterval(() => void poll(), options.pollMs);
      heartbeatTimer = setInterval(() => {
        for (const subscriber of subscribers) subscriber.sendRaw(heartbeat);
      }, options.heartbeatMs);
    })().catch((error: unknown) => {
      starting = undefined;
      throw error;
    });
    return starting;
  };

  const stopIfIdle = () => {
    if (subscribers.size > 0 || joining > 0) return;
    clearInterval(pollTimer);
    clearInterval(heartbeatTimer);
    pollTimer = undefined;
    heartbeatTimer = undefined;
    starting = undefined;
    indexed = undefined;
  };

  return {
    get subscribers() {
      return subscribers.size;
    },
    get polling() {
      return pollTimer !== undefined;
    },
    async subscribe({ token, resumeFrom }) {
      if (subscribers.size + joining >= options.maxClients) return null;
      joining++;
      try {
        return await join(token, resumeFrom);
      } finally {
        joining--;
      }
    },
  };

  async function join(token: string | undefined, resumeFrom: number | undefined): Promise<Subscriber> {
    await start();
    const subscriber = createSubscriber({
      token,
      maxQueued: options.maxQueued,
      onClose: () => {
        subscribers.delete(subscriber);
        stopIfIdle();
      },
    });
    // Replay what a reconnecting client missed, up to the hub's position, then join live.
    let from = resumeFrom;
    for (;;) {
      const target = indexed as number;
      if (from !== undefined && from > target) {
        subscriber.send({ type: 'reorg', data: { indexed_through_block: target } });
        break;
      }
      if (from === undefined || from >= target) break;
      if (target - from > maxResume) {
        subscriber.send({
          type: 'reset',
          data: { indexed_through_block: target, reason: 'resume point too old' },
        });
        break;
      }
      const changes = await readIndexChanges(await options.db(), from, target, maxEvents);
      if (changes.truncated) {
        subscriber.send({
          type: 'reset',
          data: { indexed_through_block: target, reason: 'too many events to replay' },
        });
        break;
      }
      for (const event of changes.events) subscriber.send(event);
      from = target;
      if (indexed === target) break;
    }
    subscriber.sendRaw(
      encodeEvent({ type: 'checkpoint', data: { indexed_through_block: indexed as number } }),
    );
    subscribers.add(subscriber);
    return subscriber;
  }
}
