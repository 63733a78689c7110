import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The connection's bounds, held for every request before any other stage: its place in the
 * connection's pipeline (at most so many in flight) and the deadline on sending its answer.
 */

/** A served request's place on its connection, given back when its answer closes. */
export interface PipelineSeat {
  leave(outgoing: ServerResponse): void;
}

/**
 * What to do with a request given what its connection already has in flight: serve it (its
 * seat, held until its answer closes); `refuse` it (the first past the cap: answered 429, and the
 * connection closes after that answer); `drop` it (past the cap after the refusal: never
 * answered, the connection is closing).
 */
export type PipelineVerdict = PipelineSeat | 'refuse' | 'drop';

export interface PipelineCap {
  /**
   * Counts `incoming` on its connection; a seat is counted until the caller calls its `leave`
   * when `outgoing` closes (the front listens once per answer for all it holds).
   */
  enter(incoming: IncomingMessage, outgoing: ServerResponse): PipelineVerdict;
}

class Connection implements PipelineSeat {
  /** Answers served on this connection that have not closed yet. */
  readonly open = new Set<ServerResponse>();
  /** Requests past the cap so far. */
  over = 0;
  leave(outgoing: ServerResponse): void {
    this.open.delete(outgoing);
  }
}

/**
 * At most `max` requests in flight per connection (HTTP/1.1 pipelining). node:http parses every
 * request a client pipelines and answers them in order, so one connection writing thousands of
 * requests at once would have all of them parsed, admitted and queued. Past the cap the
 * connection is finished instead: the first request over it is refused (the answers before it
 * still go out, then the connection closes), and once `max` more arrive behind that refusal, the
 * client is not reading what it asked for and the connection is destroyed at once: at most one
 * read of the socket (64 KiB) is ever parsed past the cap.
 *
 * @dev A pause of the socket cannot hold the line alone: node resumes reading whenever an answered
 * request's unread remainder is dumped, so the bound is kept by closing, not by pausing.
 * @dev When a connection closes, node 20 leaves the answers still queued behind its current one
 * without a `close` event (later versions abort them), and whatever waits for that event (a work
 * slot, an upload slot, Next.js's render) would wait forever: they are closed here.
 */
export function createPipelineCap(max: number): PipelineCap {
  const connections = new WeakMap<Socket, Connection>();
  const connectionOf = (socket: Socket): Connection => {
    const connection = connections.get(socket);
    if (connection) return connection;
    const created = new Connection();
    connections.set(socket, created);
    socket.once('close', () => {
      for (const outgoing of created.open) {
        if (outgoing.socket || outgoing.destroyed) continue;
        outgoing.destroy();
        outgoing.emit('close');
      }
    });
    return created;
  };
  return {
    enter(incoming, outgoing) {
      const socket = incoming.socket;
      const connection = connectionOf(socket);
      if (connection.over > 0 || connection.open.size >= max) {
        connection.over++;
        if (connection.over === 1) return 'refuse';
        if (connection.over > max + 1 && !socket.destroyed) socket.destroy();
        // The rest of the socket's last read is still parsed after it was destroyed: each such
        // request is ended here without an error, so node's abort of the connection's requests
        // skips it (an abort builds an error and formats its stack, per request).
        if (socket.destroyed) incoming.destroy();
        return 'drop';
      }
      connection.open.add(outgoing);
      return connection;
    },
  };
}

export interface SendDeadlines {
  /** Watches one answer until `forget` (the caller forgets it when it closes). */
  watch(outgoing: ServerResponse): void;
  /** Stops watching an answer: it has closed, or it is meant to last (the event stream). */
  forget(outgoing: ServerResponse): void;
}

/**
 * A deadline on sending every answer: an answer still being sent `timeoutMs` after its head went
 * out is cut (its connection destroyed). A client that asks for a large answer (a 5 MB object, a
 * page) and then does not read it would otherwise hold that answer's buffer and its work slot
 * (server/http/concurrency.ts) for as long as it keeps the connection open.
 *
 * @dev Checked by one timer over the open answers (every `timeoutMs / 4`, at most every second),
 * so an answer is cut between `timeoutMs` and `timeoutMs` plus one check interval after its head.
 * The start is the first check that sees the head sent, not the exact moment it was written:
 * node emits no event for it, and a timer per answer would cost every small answer for nothing.
 */
export function createSendDeadlines(
  timeoutMs: number,
  now: () => number = performance.now.bind(performance),
): SendDeadlines {
  /** Each open answer and when a check first saw its head sent (NaN: not yet). */
  const answers = new Map<ServerResponse, number>();
  const everyMs = Math.max(10, Math.min(1_000, Math.floor(timeoutMs / 4)));
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const time = now();
    for (const [outgoing, startedAt] of answers) {
      if (!outgoing.headersSent || outgoing.writableFinished) continue;
      if (Number.isNaN(startedAt)) {
        answers.set(outgoing, time);
        continue;
      }
      if (time - startedAt >= timeoutMs) {
        answers.delete(outgoing);
        outgoing.destroy();
      }
    }
    if (answers.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    watch(outgoing) {
      answers.set(outgoing, Number.NaN);
      if (!timer) {
        timer = setInterval(check, everyMs);
        timer.unref();
      }
    },
    forget(outgoing) {
      answers.delete(outgoing);
    },
  };
}
