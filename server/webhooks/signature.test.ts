import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, REPLAY_WINDOW_SECONDS, signWebhook, verifyWebhook } from './signature';

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

  it('generates distinct 256-bit secrets', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });
});
