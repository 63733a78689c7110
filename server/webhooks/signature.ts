import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Headers of every webhook POST (docs/api.md, "Webhooks"): Standard Webhooks' three, which
 * receivers verify with its maintained libraries, and the Launchdex ones of earlier releases
 * (deprecated, sent for one more release).
 */
export const webhookHeaders = {
  /** The event id: the same on every retry of an event, so a receiver can deduplicate. */
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
  launchdexSignature: 'x-launchdex-signature',
  launchdexTimestamp: 'x-launchdex-timestamp',
  idempotencyKey: 'idempotency-key',
} as const;

/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_OVERLAP_HOURS = 24;

/** A receiver refuses a signature whose timestamp is further than this from its clock. */
export const REPLAY_WINDOW_SECONDS = 300;

/**
 * A new target secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks' libraries
 * read it; shown to the operator once. (Secrets of earlier releases are base64url: Node reads
 * both alphabets, the libraries only base64, so such a target is rotated once.)
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` value of Standard Webhooks: for each secret (the current one, and the
 * previous one while it overlaps), `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`
 * keyed with the secret's decoded bytes; space-separated.
 */
export function signStandardWebhook(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

/**
 * The signature header's value for `body` sent at `timestamp` (Unix seconds): `v1=` and the hex
 * HMAC-SHA256, keyed with the target's secret, of `<timestamp>.<body>`. Signing the timestamp
 * with the body is what makes the replay window enforceable.
 *
 * @example signWebhook('whsec_…', 1_700_000_000, '{"id":"…"}') // 'v1=5d4…'
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * Whether a received webhook is authentic and fresh: one of the header's `v1=` signatures (a
 * comma-separated list) matches, compared in constant time, and `timestamp` is within
 * REPLAY_WINDOW_SECONDS of `nowSeconds`. What a receiver runs; the tests run it on every POST.
 */
export function verifyWebhook(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string,
  nowSeconds: number,
): boolean {
  if (!headers.signature || !headers.timestamp || !/^\d{1,12}$/.test(headers.timestamp)) return false;
  const timestamp = Number(headers.timestamp);
  if (Math.abs(nowSeconds - timestamp) > REPLAY_WINDOW_SECONDS) return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  return headers.signature.split(',').some((candidate) => {
    const given = Buffer.from(candidate.trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
