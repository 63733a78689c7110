import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  REPLAY_WINDOW_SECONDS,
  signStandardWebhook,
  signWebhook,
  verifyWebhook,
} from './signature';

// Rule: a receiver accepts exactly the bodies signed with its secret within the replay window.
describe('webhook signatures', () => {
  const secret = 'whsec_test';
  const body = '{"id":"trade:0xab:3","type":"trade","data":{}}';
  const at = 1_800_000_000;
  const headers = (signature: string, timestamp = at) => ({ signature, timestamp: String(timestamp) });

  it('is HMAC-SHA256 of "<timestamp>.<body>" in hex, prefixed v1=', () => {
    const hex = createHmac('sha256', secret).update(`${at}.${body}`).digest('hex');
    expect(signWebhook(secret, at, body)).toBe(`v1=${hex}`);
  });

  it('verifies its own signature, also among several (a receiver mid-rotation)', () => {
    expect(verifyWebhook(secret, headers(signWebhook(secret, at, body)), body, at)).toBe(true);
    const both = `${signWebhook('whsec_old', at, body)}, ${signWebhook(secret, at, body)}`;
    expect(verifyWebhook(secret, headers(both), body, at)).toBe(true);
  });

  it('refuses another body, secret, timestamp, or a missing header', () => {
    const signature = signWebhook(secret, at, body);
    expect(verifyWebhook(secret, headers(signature), `${body} `, at)).toBe(false);
    expect(verifyWebhook('whsec_other', headers(signature), body, at)).toBe(false);
    expect(verifyWebhook(secret, headers(signature, at + 1), body, at)).toBe(false);
    expect(verifyWebhook(secret, { signature: undefined, timestamp: String(at) }, body, at)).toBe(false);
    expect(verifyWebhook(secret, { signature, timestamp: '1e9' }, body, at)).toBe(false);
    expect(verifyWebhook(secret, headers('v1=00'), body, at)).toBe(false);
  });

  it('refuses a replay outside the window, either side', () => {
    const signature = signWebhook(secret, at, body);
    expect(verifyWebhook(secret, headers(signature), body, at + REPLAY_WINDOW_SECONDS)).toBe(true);
    expect(verifyWebhook(secret, headers(signature), body, at + REPLAY_WINDOW_SECONDS + 1)).toBe(false);
    expect(verifyWebhook(secret, headers(signature), body, at - REPLAY_WINDOW_SECONDS - 1)).toBe(false);
  });

  it('generates distinct 256-bit secrets in base64, as Standard Webhooks libraries read them', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(generateWebhookSecret()).not.toBe(a);
    expect(() => new Webhook(a)).not.toThrow();
  });

  it('signs webhook-signature as the standardwebhooks package does, one v1 entry per secret', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const id = 'trade:0xab:3';
    const both = signStandardWebhook([current, previous], id, at, body);
    expect(both.split(' ')).toEqual([
      new Webhook(current).sign(id, new Date(at * 1000), body),
      new Webhook(previous).sign(id, new Date(at * 1000), body),
    ]);
    // Either receiver accepts the delivery (fresh timestamp: the library checks its own clock).
    const now = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(now) };
    const signature = signStandardWebhook([current, previous], id, now, body);
    for (const secret of [current, previous])
      expect(new Webhook(secret).verify(body, { ...headers, 'webhook-signature': signature })).toEqual(
        JSON.parse(body),
      );
    expect(() =>
      new Webhook(generateWebhookSecret()).verify(body, { ...headers, 'webhook-signature': signature }),
    ).toThrow();
  });

  it("keys an earlier release's base64url secret with the same bytes", () => {
    const bytes = Buffer.from('00ff'.repeat(16), 'hex');
    const old = `whsec_${bytes.toString('base64url')}`;
    expect(signStandardWebhook([old], 'x', at, body)).toBe(
      new Webhook(bytes, { format: 'raw' }).sign('x', new Date(at * 1000), body),
    );
  });
});
