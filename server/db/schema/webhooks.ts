import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { blockNumber, hex } from './columns';

/**
 * Webhook targets the operator configured (`npm run webhooks`); there is no public registration.
 * Not chain-derived: reorgs and re-indexing never touch a target, only its outbox rows.
 * Delivery state lives here too: a lease (which process delivers to it now) and the retry clock.
 */
export const webhookTargets = pgTable('webhook_targets', {
  id: text('id').primaryKey(),
  url: text('url').notNull(),
  /** Only events of this token; null: every token. */
  tokenAddress: hex('token_address'),
  /** Event types delivered: a subset of trade, launch, graduation. */
  events: text('events').array().notNull(),
  /** HMAC-SHA256 key of the signature header; the operator saw it once, at add or rotate. */
  secret: text('secret').notNull(),
  /** The secret before the last rotation: it still signs every POST beside `secret` until `previousSecretUntil`. */
  previousSecret: text('previous_secret'),
  previousSecretUntil: timestamp('previous_secret_until', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** The head of its queue is not tried again before this. */
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
  /** Failed attempts of the event at the head of its queue. */
  attempts: integer('attempts').notNull().default(0),
  /** When the current run of failures began; null while deliveries succeed. */
  failingSince: timestamp('failing_since', { withTimezone: true }),
  lastError: text('last_error'),
  lastDeliveredAt: timestamp('last_delivered_at', { withTimezone: true }),
  delivered: bigint('delivered', { mode: 'number' }).notNull().default(0),
  /**
   * At most this many events per POST: 1 sends each event as its own body; more sends a `batch`
   * body of consecutive events (docs/api.md), a shape the receiver opted into.
   */
  batchSize: integer('batch_size').notNull().default(1),
  /** The process delivering to it, until `leaseUntil`: one deliverer per target keeps chain order. */
  leaseOwner: text('lease_owner'),
  leaseUntil: timestamp('lease_until', { withTimezone: true }),
});

/**
 * The durable outbox: one row per (target, event) for targets whose filters matched, written in
 * the indexer's transaction of the range (server/webhooks/outbox.ts). `seq` is chain order per
 * target (rows are inserted under the checkpoint lock, in block and log order). A retraction is a
 * row of its own, with a null block: no later rollback touches it.
 */
export const webhookOutbox = pgTable(
  'webhook_outbox',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    targetId: text('target_id')
      .notNull()
      .references(() => webhookTargets.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    kind: text('kind').notNull(),
    blockNumber: blockNumber('block_number'),
    /** The exact JSON sent, so every retry of an event is byte-identical. */
    body: text('body').notNull(),
    /** Set before each POST: a row that was ever sent may have arrived, so a reorg retracts it. */
    attemptedAt: timestamp('attempted_at', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    index('webhook_outbox_pending_idx').on(t.targetId, t.seq).where(sql`${t.deliveredAt} is null`),
    index('webhook_outbox_block_idx').on(t.blockNumber),
  ],
);
