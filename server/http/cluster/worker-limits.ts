import type { Logger } from 'pino';
import { createWorkerLimits, type WorkerLimits } from './limit-client';
import { isLimitAnswers } from './protocol';

/** At most one warning per this interval about requests the primary left unanswered. */
const WARN_EVERY_MS = 10_000;

/**
 * This worker's limits, counted by the cluster primary over the IPC channel. Only for a process
 * forked by `npm run serve --workers N`; built once, by the process (server/process/limits.ts),
 * as it listens on the channel for the primary's answers.
 */
export function openWorkerLimits(logger: Logger): WorkerLimits {
  const send = process.send?.bind(process);
  if (!send) throw new Error('openWorkerLimits: this process has no IPC channel to a cluster primary');
  let warnedAt = 0;
  let unanswered = 0;
  return createWorkerLimits(
    {
      // A closed channel means the primary is gone; the cluster ends this worker on its own.
      send: (requests) => {
        if (process.connected) send(requests);
      },
      onAnswers: (listener) => {
        process.on('message', (message: unknown) => {
          if (isLimitAnswers(message)) listener(message);
        });
      },
    },
    {
      onUnanswered: (count) => {
        unanswered += count;
        if (Date.now() - warnedAt < WARN_EVERY_MS) return;
        warnedAt = Date.now();
        logger.warn({ unanswered }, 'cluster primary did not answer limit checks in time; let through');
        unanswered = 0;
      },
    },
  );
}
