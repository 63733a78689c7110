import { type LiveEvent, passesTokenFilter } from '../../shared/stream/events';
import { readIndexedThroughBlock } from '../db/checkpoint';
import type { Database } from '../db/client';
import { heartbeat, type ResumePoint } from './encode';
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
  /**
   * Null when the process is at its connection limit. The subscriber holds one of the
   * `maxClients` slots from this call until it closes, however it closes (overflow, abort of
   * `signal`, the reader cancelling, `close()`, a failed replay); it may come back already closed
   * (a client gone meanwhile), its stream then carrying what is left. A resume gets its replay in
   * detail only when it fits half the queue, else a `reset`: what comes back never overflows.
   * Rejects when the database cannot be read, the slot released.
   */
  subscribe(options: {
    token: string | undefined;
    resumeFrom: ResumePoint;
    signal?: AbortSignal;
  }): Promise<Subscriber | null>;
  /** Subscribers receiving live events (replay done). */
  readonly subscribers: number;
  /** Slots held: every subscriber not yet closed, replaying or live. */
  readonly slots: number;
  /** Whether the checkpoint poller runs (only while someone holds a slot). */
  readonly polling: boolean;
}

/** The checkpoint poller of one busy period (from the first slot taken to the last released). */
interface Poller {
  /** Resolves once `indexed` holds the checkpoint read at start; rejects if it could not be read. */
  readonly ready: Promise<void>;
  /** The block every live subscriber has been sent everything up to. */
  readonly indexed: number;
  stop(): void;
}

/**
 * Fans the index's progress out to every connected stream of this process. One poller reads the
 * checkpoint every `pollMs` while anyone listens; when it advances it reads the new blocks'
 * launches, trades and graduations once and sends each subscriber what concerns it, then a
 * checkpoint. It reads only PostgreSQL, so N web instances and a separate indexer need no
 * broker between them.
 *
 * @dev Slots are counted by construction: taken in `subscribe` right before the subscriber is
 * created, released in its `onClose`, which the subscriber calls exactly once on every way it
 * ends. `live` only ever holds open subscribers: added synchronously after a check that it is
 * open, removed in the same `onClose`.
 */
export function createStreamHub(options: StreamHubOptions): StreamHub {
  const live = new Set<Subscriber>();
  const maxEvents = options.maxEventsPerAdvance ?? 5_000;
  const maxResume = options.maxResumeBlocks ?? 1_000;
  // Chunks a replay may leave queued, its closing event included: the other half of the queue
  // takes what comes before the client starts reading (the route's `retry:`, live advances).
  const replayRoom = Math.max(1, Math.floor(options.maxQueued / 2));
  let slots = 0;
  let poller: Poller | undefined;

  const broadcast = (events: LiveEvent[]) => {
    // A subscriber that overflows leaves `live` during the loop; a Set iteration allows that.
    for (const subscriber of live) for (const event of events) if (!subscriber.send(event)) break;
  };

  /** Starts the poller of a busy period and makes it `poller`. */
  const startPoller = (): Poller => {
    let indexed = 0;
    let stopped = false;
    let busy = false;
    let pollTimer: ReturnType<typeof setInterval> | undefined;
    let heartbeatTimer: ReturnType<typeof setInterval> | undefined;

    const poll = async () => {
      if (busy || stopped) return;
      busy = true;
      try {
        const db = await options.db();
        const current = await readIndexedThroughBlock(db);
        if (stopped) return;
        const previous = indexed;
        if (current > previous) {
          const changes = await readIndexChanges(db, previous, current, maxEvents);
          if (stopped) return;
          // Fan-out and the new position are one synchronous step: a subscriber added after it
          // replays up to `indexed` and misses nothing.
          indexed = current;
          broadcast(
            changes.truncated
              ? [
                  {
                    type: 'reset',
                    data: { indexed_through_block: current, reason: 'too many events at once' },
                  },
                ]
              : [...changes.events, { type: 'checkpoint', data: { indexed_through_block: current } }],
          );
        } else if (current < previous) {
          indexed = current;
          broadcast([{ type: 'reorg', data: { indexed_through_block: current } }]);
        }
      } catch (error) {
        if (!stopped) options.onError?.(error);
      } finally {
        busy = false;
      }
    };

    const stop = () => {
      stopped = true;
      clearInterval(pollTimer);
      clearInterval(heartbeatTimer);
    };

    let ready: Promise<void> = Promise.resolve();
    const started: Poller = {
      get ready() {
        return ready;
      },
      get indexed() {
        return indexed;
      },
      stop,
    };
    // Registered before its first read: a client that leaves during that read (the last one)
    // stops it, and no timers start for nobody.
    poller = started;
    ready = (async () => {
      const start = await readIndexedThroughBlock(await options.db());
      if (stopped) return;
      indexed = start;
      pollTimer = setInterval(() => void poll(), options.pollMs);
      heartbeatTimer = setInterval(() => {
        for (const subscriber of live) subscriber.sendRaw(heartbeat);
      }, options.heartbeatMs);
    })();
    // A poller that could not start is forgotten, so the next subscriber tries again; its
    // joiners see the rejection themselves.
    ready.catch(() => {
      stop();
      if (poller === started) poller = undefined;
    });
    return started;
  };

  const release = (subscriber: Subscriber) => {
    slots--;
    live.delete(subscriber);
    if (slots === 0 && poller) {
      poller.stop();
      poller = undefined;
    }
  };

  /**
   * Replays what a reconnecting client missed, up to the poller's position, then joins it to
   * `live`. Returns early as soon as the subscriber is closed: its slot is already released and
   * nothing more is read for it.
   *
   * @dev A resume always makes progress: the catch-up ends with one event carrying `id:` = the
   * poller's position: `checkpoint` after a replay in detail (or none needed), `reorg` for a
   * resume point above the index, else `reset` (an unreadable Last-Event-ID, a resume point too
   * old, too many events, or a replay that would not fit `replayRoom`). The client reads nothing before `subscribe` returns,
   * so a replay filling its queue would overflow, that id unread, and EventSource would resume
   * from the same point forever.
   */
  const join = async (subscriber: Subscriber, resumeFrom: ResumePoint) => {
    if (subscriber.closed) return;
    // The subscriber holds a slot, so this poller is not stopped while it is open.
    const current = poller ?? startPoller();
    await current.ready;
    let from = resumeFrom === 'unreadable' ? undefined : resumeFrom;
    // What the client has is unknown, so it refetches; the reset's id gives it a resume point.
    let ending: 'caught up' | 'reorg' | { reset: string } =
      resumeFrom === 'unreadable' ? { reset: 'Last-Event-ID is not a block number' } : 'caught up';
    while (ending === 'caught up') {
      if (subscriber.closed) return;
      const target = current.indexed;
      if (from !== undefined && from > target) {
        ending = 'reorg';
        break;
      }
      if (from === undefined || from >= target) break;
      if (target - from > maxResume) {
        ending = { reset: 'resume point too old' };
        break;
      }
      const db = await options.db();
      if (subscriber.closed) return;
      const changes = await readIndexChanges(db, from, target, maxEvents);
      if (subscriber.closed) return;
      if (changes.truncated) {
        ending = { reset: 'too many events to replay' };
        break;
      }
      const replay = changes.events.filter((event) => passesTokenFilter(event, subscriber.token));
      // Counted with what earlier rounds queued and the closing event.
      if (subscriber.queued + replay.length + 1 > replayRoom) {
        ending = { reset: 'replay too large for the client queue' };
        break;
      }
      for (const event of replay) if (!subscriber.send(event)) return;
      from = target;
      if (current.indexed === target) break;
    }
    // Read in the same synchronous step as `live.add`: the poller's later broadcasts reach this
    // subscriber, and everything up to `position` was sent, or is what `reset`/`reorg` refetch.
    const position = { indexed_through_block: current.indexed };
    subscriber.send(
      ending === 'caught up'
        ? { type: 'checkpoint', data: position }
        : ending === 'reorg'
          ? { type: 'reorg', data: position }
          : { type: 'reset', data: { ...position, reason: ending.reset } },
    );
    if (!subscriber.closed) live.add(subscriber);
  };

  return {
    get subscribers() {
      return live.size;
    },
    get slots() {
      return slots;
    },
    get polling() {
      return poller !== undefined;
    },
    async subscribe({ token, resumeFrom, signal }) {
      if (slots >= options.maxClients) return null;
      slots++;
      const subscriber = createSubscriber({ token, maxQueued: options.maxQueued, signal, onClose: release });
      try {
        await join(subscriber, resumeFrom);
      } catch (error) {
        subscriber.close();
        throw error;
      }
      return subscriber;
    },
  };
}
