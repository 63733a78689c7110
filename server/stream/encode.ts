import { parseResumeToken, type ResumeToken } from '../../shared/api/stream';
import type { LiveEvent } from '../../shared/stream/events';

/**
 * One server-sent event. Checkpoint-like events carry `id:` (their resume token, else the bare
 * block), so a reconnecting EventSource sends it back as Last-Event-ID and resumes from there.
 */
export function encodeEvent(event: LiveEvent): string {
  const id =
    event.type === 'checkpoint' || event.type === 'reorg' || event.type === 'reset'
      ? `id: ${event.id ?? event.data.indexed_through_block}\n`
      : '';
  return `event: ${event.type}\n${id}data: ${JSON.stringify(event.data)}\n\n`;
}

/** A comment line: keeps proxies and load balancers from closing an idle stream. */
export const heartbeat = ': ping\n\n';

/** Tells EventSource how long to wait before reconnecting. */
export const retryDirective = (ms: number) => `retry: ${ms}\n\n`;

/**
 * Where a client resumes: a stream id (a bare block number from an earlier version has no `seq`),
 * `'unreadable'` for a Last-Event-ID that is no id this stream sends (the client gets `reset`,
 * docs/api.md "Live stream"), or undefined for no resume point.
 */
export type ResumePoint = ResumeToken | 'unreadable' | undefined;

/**
 * The resume point of a connection: Last-Event-ID, else the `since` the route parsed (a malformed
 * `since` is a 400 there). An empty Last-Event-ID is none: EventSource sends the header only when
 * it holds an id.
 */
export function resumePoint(lastEventId: string | null, since: ResumeToken | undefined): ResumePoint {
  if (lastEventId === null || lastEventId === '') return since;
  return parseResumeToken(lastEventId) ?? 'unreadable';
}
