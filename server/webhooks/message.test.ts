import { describe, expect, it } from 'vitest';
import { webhookMessage } from './message';

const event = (n: number) => {
  const id = `trade:0x${n.toString(16).padStart(64, '0')}:${n}`;
  return { id, body: JSON.stringify({ id, type: 'trade', data: { log_index: n, note: 'é "quoted"' } }) };
};

// Rule (docs/api.md, "Webhooks"): a target sends one event per POST, or opted into batches of
// consecutive events whose bytes are the stored ones, under an id that names exactly what it carries.
describe('webhookMessage', () => {
  it('sends the event itself, id and bytes unchanged, to a target without batches', () => {
    expect(webhookMessage([event(1)], 1)).toEqual(event(1));
  });

  it("wraps a batching target's events in one batch body, in order, each byte for byte", () => {
    const events = [event(1), event(2), event(3)];
    const message = webhookMessage(events, 100);
    expect(message.id).toMatch(/^batch:[0-9a-f]{32}$/);
    const parsed = JSON.parse(message.body) as { id: string; type: string; data: unknown[] };
    expect(parsed.id).toBe(message.id);
    expect(parsed.type).toBe('batch');
    expect(parsed.data).toEqual(events.map((e) => JSON.parse(e.body)));
    for (const e of events) expect(message.body).toContain(e.body);
    // One event is still a batch for a batching target: its receiver reads one shape.
    expect(JSON.parse(webhookMessage([event(1)], 100).body).type).toBe('batch');
  });

  it('gives the same events the same id and bytes, and any other set another id', () => {
    const once = webhookMessage([event(1), event(2)], 50);
    expect(webhookMessage([event(1), event(2)], 2)).toEqual(once);
    const others = [
      webhookMessage([event(1), event(2), event(3)], 50),
      webhookMessage([event(1)], 50),
      webhookMessage([event(2), event(1)], 50),
    ].map((m) => m.id);
    expect(new Set([once.id, ...others]).size).toBe(4);
  });

  it('refuses an empty message', () => {
    expect(() => webhookMessage([], 1)).toThrow(/at least one event/);
  });
});
