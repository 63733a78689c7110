import { pgTable, text } from 'drizzle-orm/pg-core';

/**
 * Keys the service generates for itself and every process on this database must share (the
 * cursor HMAC key when CURSOR_SECRET is unset). Not chain-derived: reorgs, re-indexing and
 * moderation never touch it. A row is written once, by whichever process needs it first.
 */
export const serviceSecrets = pgTable('service_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
});
