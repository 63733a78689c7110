import type { LiveEvent } from '../../shared/stream/events';

/**
 * One server-sent event. Checkpoint-like events carry `id:` = the block, so a reconnecting
 * EventSource sends it back as Last-Event-ID and resumes from there.
 */
export function encodeEvent(event: LiveEvent): string {
  const id =
    event.type === 'checkpoint' || event.type === 'reorg' || event.type === 'reset'
      ? `id: ${event.data.indexed_through_block}\n`
      : '';
  return `event: ${event.type}\n${id}data: ${JSON.stringify(event.data)}\n\n`;
}

/** A comment line: keeps proxies and load balancers from closing an idle stream. */
export const heartbeat = ': ping\n\n';

/** Tells EventSource how long to wait before reconnecting. */
export const retryDirective = (ms: number) => `retry: ${ms}\n\n`;

/** The block a client resumes from: Last-Event-ID, else `?since=`; undefined when absent or malformed. */
export function resumeBlock(lastEventId: string | null, since: string | null): number | undefined {
  const value = lastEventId ?? since;
  if (value === null || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}
