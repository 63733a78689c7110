import { getLogger } from '../../logger';
import { createWorkerLimits, type WorkerLimits } from './limit-client';
import { isLimitAnswers } from './protocol';

const slot: { workerLimits?: WorkerLimits } = {};
/** At most one warning per this interval about requests the primary left unanswered. */
const WARN_EVERY_MS = 10_000;

/**
 * This worker's limits, counted by the cluster primary (one instance per process). Only for a process forked by `npm run serve --workers N`.
 */
export function getWorkerLimits(): WorkerLimits {
  if (slot.workerLimits) return slot.workerLimits;
  const send = process.send?.bind(process);
  if (!send) throw new Error('getWorkerLimits: this process has no IPC channel to a cluster primary');
  let warnedAt = 0;
  let unanswered = 0;
  slot.workerLimits = createWorkerLimits(
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
        getLogger().warn({ unanswered }, 'cluster primary did not answer limit checks in time; let through');
        unanswered = 0;
      },
    },
  );
  return slot.workerLimits;
}
