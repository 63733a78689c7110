import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Database, selectRows } from '../db/client';
import { MAX_WEBHOOK_BATCH } from './message';
import { type WebhookEventType, webhookEventTypes } from './outbox';
import { isFailing, type RetryPolicy } from './retry';
import { generateWebhookSecret, SECRET_OVERLAP_HOURS } from './signature';

/** A target as `list` shows it (never its secret). */
export interface WebhookTarget {
  id: string;
  url: string;
  tokenAddress: string | null;
  events: WebhookEventType[];
  /** At most this many events per POST; 1: one event per POST (webhookMessage). */
  batchSize: number;
  createdAt: Date;
}

/** Delivery state of a target, as `status` shows it. */
export interface WebhookTargetStatus extends WebhookTarget {
  pending: number;
  delivered: number;
  lastDeliveredAt: Date | null;
  /** When its current run of failures began (null: the last attempt succeeded). */
  failingSince: Date | null;
  /** Failing for longer than the policy's threshold (24 h by default). */
  failing: boolean;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
}

/** Parses `--events trade,launch`; undefined when a name is not an event type. */
export function parseEventTypes(text: string): WebhookEventType[] | undefined {
  const names = [
    ...new Set(
      text
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
  if (names.length === 0) return undefined;
  if (
    !names.every((name): name is WebhookEventType => (webhookEventTypes as readonly string[]).includes(name))
  )
    return undefined;
  return webhookEventTypes.filter((type) => names.includes(type));
}

/** Parses `--batch N`: a whole number of events per POST, 1 to MAX_WEBHOOK_BATCH; undefined otherwise. */
export function parseBatchSize(text: string): number | undefined {
  if (!/^[1-9]\d{0,3}$/.test(text)) return undefined;
  const size = Number(text);
  return size <= MAX_WEBHOOK_BATCH ? size : undefined;
}

const toDate = (value: Date | string | null) => (value === null ? null : new Date(value));

/**
 * Stores a target (its URL already checked by the caller with checkWebhookUrl) with a new secret.
 * It receives the events of ranges indexed from now on.
 */
export async function addWebhookTarget(
  db: Database,
  target: { url: string; tokenAddress: string | null; events: WebhookEventType[]; batchSize?: number },
): Promise<{ id: string; secret: string }> {
  const id = `wh_${randomBytes(8).toString('hex')}`;
  const secret = generateWebhookSecret();
  await db.execute(sql`insert into webhook_targets (id, url, token_address, events, secret, batch_size)
    values (${id}, ${target.url}, ${target.tokenAddress}, ${`{${target.events.join(',')}}`}::text[], ${secret},
            ${target.batchSize ?? 1})`);
  return { id, secret };
}

/**
 * How many events a target's POSTs carry from its next POST on (a POST in flight keeps its own);
 * false when there is no such target. Its receiver must read the new shape first (docs/api.md).
 */
export async function setWebhookBatchSize(db: Database, id: string, batchSize: number): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    db,
    sql`update webhook_targets set batch_size = ${batchSize} where id = ${id} returning id`,
  );
  return rows.length > 0;
}

/** Removes a target and its queue; false when there was none with this id. */
export async function removeWebhookTarget(db: Database, id: string): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    db,
    sql`delete from webhook_targets where id = ${id} returning id`,
  );
  return rows.length > 0;
}

/**
 * A new secret for a target, signing from its next POST; the old one keeps signing beside it for
 * SECRET_OVERLAP_HOURS, so receivers can switch without refusing a delivery. Undefined when there
 * is no such target.
 */
export async function rotateWebhookSecret(db: Database, id: string): Promise<string | undefined> {
  const secret = generateWebhookSecret();
  const rows = await selectRows<{ id: string }>(
    db,
    sql`update webhook_targets
           set previous_secret = secret, secret = ${secret},
               previous_secret_until = now() + ${SECRET_OVERLAP_HOURS} * interval '1 hour'
         where id = ${id} returning id`,
  );
  return rows.length > 0 ? secret : undefined;
}

type TargetRow = {
  id: string;
  url: string;
  token_address: string | null;
  events: string[] | string;
  batch_size: number;
  created_at: Date | string;
  pending: number;
  delivered: string | number;
  last_delivered_at: Date | string | null;
  failing_since: Date | string | null;
  attempts: number;
  next_attempt_at: Date | string;
  last_error: string | null;
  now: Date | string;
};

/** Every target with its queue and retry state, oldest first. */
export async function webhookStatus(db: Database, policy: RetryPolicy): Promise<WebhookTargetStatus[]> {
  const rows = await selectRows<TargetRow>(
    db,
    sql`select w.id, w.url, w.token_address, w.events, w.batch_size, w.created_at, w.delivered, w.last_delivered_at,
               w.failing_since, w.attempts, w.next_attempt_at, w.last_error, now() as now,
               (select count(*)::int from webhook_outbox o where o.target_id = w.id and o.delivered_at is null) as pending
          from webhook_targets w order by w.created_at, w.id`,
  );
  return rows.map((row) => {
    const failingSince = toDate(row.failing_since);
    return {
      id: row.id,
      url: row.url,
      tokenAddress: row.token_address,
      // PGlite hands a text[] over as an array, postgres.js too; a literal `{a,b}` is tolerated.
      events: (Array.isArray(row.events) ? row.events : row.events.replace(/[{}]/g, '').split(',')).filter(
        (name): name is WebhookEventType => (webhookEventTypes as readonly string[]).includes(name),
      ),
      batchSize: row.batch_size,
      createdAt: new Date(row.created_at),
      pending: Number(row.pending),
      delivered: Number(row.delivered),
      lastDeliveredAt: toDate(row.last_delivered_at),
      failingSince,
      failing: isFailing(policy, failingSince, new Date(row.now)),
      attempts: row.attempts,
      nextAttemptAt: new Date(row.next_attempt_at),
      lastError: row.last_error,
    };
  });
}
