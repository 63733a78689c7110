import { bigint, pgTable, smallint } from 'drizzle-orm/pg-core';

/**
 * One counter that every write visible to a read answer increments in its own transaction: an
 * indexed block range, a reorg rollback, a finalize binding, a moderation change. Web processes
 * key their cache of serialized answers on it (server/api/rest/read-cache.ts).
 */
export const readModelVersion = pgTable('read_model_version', {
  id: smallint('id').primaryKey(),
  version: bigint('version', { mode: 'bigint' }).notNull(),
});
