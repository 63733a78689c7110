import type { ServerResponse } from 'node:http';

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
