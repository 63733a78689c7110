import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Indexes the indexer dropped for an initial backfill and builds once it reaches the head
 * (server/db/deferred-indexes.ts). Each row holds the index's own definition as PostgreSQL
 * printed it, written in the transaction that dropped it, so a crash between the drop and the
 * build loses nothing: the next indexer finds the row and builds the index from it.
 */
export const deferredIndexes = pgTable('deferred_indexes', {
  name: text('name').primaryKey(),
  tableName: text('table_name').notNull(),
  definition: text('definition').notNull(),
  deferredAt: timestamp('deferred_at', { withTimezone: true }).notNull().defaultNow(),
});
