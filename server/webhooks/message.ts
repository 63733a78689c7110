import { createHash } from 'node:crypto';

/** The most events one POST may carry (`--batch N`): a trade's body is about 650 bytes. */
export const MAX_WEBHOOK_BATCH = 500;

/** What one POST sends: its Standard Webhooks id and its exact body bytes. */
export interface WebhookMessage {
  id: string;
  body: string;
}

/**
 * The POST for consecutive queued events of one target (their stored bodies, in `seq` order).
 * A target with `batchSize` 1 gets the event itself; a batching target always gets a `batch` body,
 * `{"id","type":"batch","data":[event, …]}`, whose events are the stored bytes in order, even when
 * one event is all there is (one shape for its receiver). A batch's id derives from the ids it
 * carries: a retry of the same events is the same message, byte for byte; a retry that carries
 * more (events queued meanwhile) or fewer (a reorg took some back) is a new message.
 *
 * @example webhookMessage([{ id: 'trade:0xab:1', body: '{"id":"trade:0xab:1",…}' }], 1)
 */
export function webhookMessage(events: readonly WebhookMessage[], batchSize: number): WebhookMessage {
  const [first] = events;
  if (!first) throw new Error('a webhook message needs at least one event');
  if (batchSize === 1) return first;
  const digest = createHash('sha256')
    .update(events.map((event) => event.id).join('\n'))
    .digest('hex')
    .slice(0, 32);
  const id = `batch:${digest}`;
  return { id, body: `{"id":"${id}","type":"batch","data":[${events.map((e) => e.body).join(',')}]}` };
}
