import { formatResumeToken } from '../../shared/api/stream';
import { type LiveEvent, passesTokenFilter } from '../../shared/stream/events';
import { type IndexPosition, readIndexPosition, readRollbacksBetween } from '../db/checkpoint';
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
  /**
   * Polls the index now, when anyone listens: resolves once a poll that started after the call
   * has finished (what it found sent). A resume from an id newer than this poller's position
   * waits for one; tests drive the poller with it.
   */
  refresh(): Promise<void>;
  /** Subscribers receiving live events (replay done). */
  readonly subscribers: number;
  /** Slots held: every subscriber not yet closed, replaying or live. */
  readonly slots: number;
  /** Whether the checkpoint poller runs (only while someone holds a slot). */
  readonly polling: boolean;
}

/** The checkpoint poller of one busy period (from the first slot taken to the last released). */
interface Poller {
  /** Resolves once `position` holds the index's position read at start; rejects if unreadable. */
  readonly ready: Promise<void>;
  /**
   * What every live subscriber has been sent everything up to: the index at this block, as of
   * this entry of its change log. Replaced (a new object) whenever it moves.
   */
  readonly position: HubPosition;
  /** See StreamHub.refresh. */
  refresh(): Promise<void>;
  stop(): void;
}

/** What takes a client from one index position to another. */
type CatchUp =
  | { events: LiveEvent[] }
  /** More events than the limit: the client refetches instead. */
  | { skipped: 'truncated' }
  /** The change log no longer reaches back to `from` (pruned, or another database's): unknown. */
  | { skipped: 'unknown' };

/** The index's position as the hub sends it: with the id of the database it was read from. */
type HubPosition = IndexPosition & { database: string };

const checkpointAt = (position: HubPosition): LiveEvent => ({
  type: 'checkpoint',
  data: { indexed_through_block: position.block },
  id: formatResumeToken(position.block, position.seq, position.database),
});

const resetAt = (position: HubPosition, reason: string): LiveEvent => ({
  type: 'reset',
  data: { indexed_through_block: position.block, reason },
  id: formatResumeToken(position.block, position.seq, position.database),
});

/**
 * The events that take a client holding everything through `from.block`, as of log entry
 * `from.seq`, to `to`: a `reorg` when a rollback logged in between kept less than it holds (its
 * id: the block kept, as of `to.seq`), then the events of the blocks after the lowest block
 * kept. The closing checkpoint is the caller's.
 *
 * @dev The log is read before the events, possibly in an earlier snapshot than theirs: events of
 * a rollback committed in between land above the block it kept, and the next catch-up, from
 * `to.seq`, signals that rollback with that block. A client is never left holding them.
 */
async function readCatchUp(
  db: Database,
  from: IndexPosition,
  to: HubPosition,
  limit: number,
): Promise<CatchUp> {
  if (from.seq > to.seq) return { skipped: 'unknown' };
  const rollbacks = await readRollbacksBetween(db, from.seq, to.seq);
  if (!rollbacks.known) return { skipped: 'unknown' };
  // The index standing below what the client holds is a rollback too, logged or not (a bare
  // block id above the index, a checkpoint written by hand).
  const kept = Math.min(from.block, to.block, rollbacks.lowestKept ?? from.block);
  const events: LiveEvent[] = [];
  if (kept < from.block)
    events.push({
      type: 'reorg',
      data: { indexed_through_block: kept },
      id: formatResumeToken(kept, to.seq, to.database),
    });
  if (to.block > kept) {
    const changes = await readIndexChanges(db, kept, to.block, limit);
    if (changes.truncated) return { skipped: 'truncated' };
    events.push(...changes.events);
  }
  return { events };
}

/**
 * Fans the index's progress out to every connected stream of this process. One poller reads the
 * index's position (checkpoint and change-log entry) every `pollMs` while anyone listens; when it
 * moved it reads the rollbacks logged since its last poll and the launches, trades and
 * graduations of the blocks after the lowest block still as it was, once, and sends each
 * subscriber what concerns it: `reorg` first when a rollback reached below what was sent (even
 * when the index is past it again by then), then the events, then a checkpoint. It reads only
 * PostgreSQL, so N web instances and a separate indexer need no broker between them.
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
    let position: HubPosition = { block: 0, seq: 0, database: '' };
    let stopped = false;
    let running: Promise<void> | undefined;
    let next: Promise<void> | undefined;
    let pollTimer: ReturnType<typeof setInterval> | undefined;
    let heartbeatTimer: ReturnType<typeof setInterval> | undefined;

    const pollOnce = async () => {
      try {
        const db = await options.db();
        const now = await readIndexPosition(db);
        if (stopped || (now.seq === position.seq && now.block === position.block)) return;
        const caught = await readCatchUp(db, position, now, maxEvents);
        if (stopped) return;
        // Fan-out and the new position are one synchronous step: a subscriber added after it
        // replays up to `position` and misses nothing.
        position = now;
        broadcast(
          'events' in caught
            ? [...caught.events, checkpointAt(now)]
            : [
                resetAt(
                  now,
                  caught.skipped === 'truncated'
                    ? 'too many events at once'
                    : 'index changes since the last poll are unknown',
                ),
              ],
        );
      } catch (error) {
        if (!stopped) options.onError?.(error);
      }
    };
    // One poll at a time; a caller arriving during one gets the next, which reads after it came.
    const poll = (): Promise<void> => {
      if (!running) {
        const started = pollOnce().finally(() => {
          if (running === started) running = undefined;
        });
        running = started;
        return started;
      }
      next ??= running.then(() => {
        next = undefined;
        return poll();
      });
      return next;
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
      get position() {
        return position;
      },
      refresh: () => (stopped ? Promise.resolve() : ready.then(poll)),
      stop,
    };
    // Registered before its first read: a client that leaves during that read (the last one)
    // stops it, and no timers start for nobody.
    poller = started;
    ready = (async () => {
      const start = await readIndexPosition(await options.db());
      if (stopped) return;
      position = start;
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
   * @dev A resume always makes progress: the catch-up ends with one event carrying the poller's
   * position as its id: `checkpoint` after a replay in detail (a `reorg` first when blocks the
   * client holds were rolled back since its id, or its bare block id is above the index), else
   * `reset` (an unreadable Last-Event-ID, a resume point too old or unknown, too many events, or
   * a replay that would not fit `replayRoom`). The client reads nothing before `subscribe`
   * returns, so a replay filling its queue would overflow, that id unread, and EventSource would
   * resume from the same point forever.
   */
  const join = async (subscriber: Subscriber, resumeFrom: ResumePoint) => {
    if (subscriber.closed) return;
    // The subscriber holds a slot, so this poller is not stopped while it is open.
    const current = poller ?? startPoller();
    await current.ready;
    // What the client has is unknown, so it refetches; the reset's id gives it a resume point.
    let reset: string | undefined =
      resumeFrom === 'unreadable' ? 'Last-Event-ID is not a stream id' : undefined;
    let from: IndexPosition | undefined;
    const database = current.position.database;
    if (resumeFrom !== undefined && resumeFrom !== 'unreadable' && resumeFrom.database !== undefined) {
      // Issued by another database (blue/green, a re-index): its blocks and seqs mean nothing here.
      if (database !== '' && resumeFrom.database !== database) reset = 'resume point from another database';
    }
    if (reset === undefined && resumeFrom !== undefined && resumeFrom !== 'unreadable') {
      if (resumeFrom.seq === undefined) {
        // A bare block id (an earlier version's): resumed as then, without a rollback check.
        from = { block: resumeFrom.block, seq: current.position.seq };
      } else {
        // An id newer than this poller's position (another instance ahead of it): look again.
        if (resumeFrom.seq > current.position.seq) await current.refresh();
        if (subscriber.closed) return;
        if (resumeFrom.seq > current.position.seq) reset = 'resume point unknown to this index';
        else from = { block: resumeFrom.block, seq: resumeFrom.seq };
      }
    }
    while (reset === undefined && from !== undefined) {
      if (subscriber.closed) return;
      const target = current.position;
      if (from.block === target.block && from.seq === target.seq) break;
      if (target.block - from.block > maxResume) {
        reset = 'resume point too old';
        break;
      }
      const db = await options.db();
      if (subscriber.closed) return;
      const caught = await readCatchUp(db, from, target, maxEvents);
      if (subscriber.closed) return;
      if (!('events' in caught)) {
        reset = caught.skipped === 'truncated' ? 'too many events to replay' : 'resume point too old';
        break;
      }
      const replay = caught.events.filter((event) => passesTokenFilter(event, subscriber.token));
      // Counted with what earlier rounds queued and the closing event.
      if (subscriber.queued + replay.length + 1 > replayRoom) {
        reset = 'replay too large for the client queue';
        break;
      }
      for (const event of replay) if (!subscriber.send(event)) return;
      from = target;
      if (current.position === target) break;
    }
    // Read in the same synchronous step as `live.add`: the poller's later broadcasts reach this
    // subscriber, and everything up to `position` was sent, or is what `reset` refetches.
    const position = current.position;
    subscriber.send(reset === undefined ? checkpointAt(position) : resetAt(position, reset));
    if (!subscriber.closed) live.add(subscriber);
  };

  return {
    refresh: () => poller?.refresh() ?? Promise.resolve(),
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
