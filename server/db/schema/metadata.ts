import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { hex, uint256 } from './columns';

/**
 * Creator-supplied metadata, uploaded before the launch. Not chain-derived: a reorg or a full
 * re-index never touches it, so a finalized binding survives both and is re-applied to the
 * token row whenever the indexer (re)creates it.
 */
export const metadataDrafts = pgTable(
  'metadata_drafts',
  {
    id: text('id').primaryKey(),
    creator: hex('creator'),
    name: text('name').notNull(),
    symbol: text('symbol').notNull(),
    initialSupply: uint256('initial_supply').notNull(),
    description: text('description').notNull().default(''),
    websiteUrl: text('website_url'),
    xUrl: text('x_url'),
    telegramUrl: text('telegram_url'),
    discordUrl: text('discord_url'),
    imageKey: text('image_key').notNull(),
    /** keccak256 of the canonical draft content; the launch transaction carries it. */
    metadataHash: hex('metadata_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    boundTokenAddress: hex('bound_token_address'),
    boundTransactionHash: hex('bound_transaction_hash'),
    boundAt: timestamp('bound_at', { withTimezone: true }),
    /**
     * The uploader as the HTTP front keyed it (its rate-limit key: an IPv4 address or an IPv6
     * /64); null for drafts made before the budget existed or in-process without a front.
     */
    client: text('client'),
    /** What this draft counts against its client's storage budget: its stored image's and text's bytes. */
    storedBytes: integer('stored_bytes').notNull().default(0),
  },
  (t) => [
    index('metadata_drafts_hash_idx').on(t.metadataHash),
    // The budget sums a client's unbound drafts; the purge walks unbound drafts by age.
    index('metadata_drafts_unbound_client_idx').on(t.client).where(sql`${t.boundTokenAddress} is null`),
    index('metadata_drafts_unbound_created_idx').on(t.createdAt).where(sql`${t.boundTokenAddress} is null`),
    index('metadata_drafts_image_key_idx').on(t.imageKey),
    uniqueIndex('metadata_drafts_bound_token_idx')
      .on(t.boundTokenAddress)
      .where(sql`${t.boundTokenAddress} is not null`),
  ],
);

/** Index of stored objects (the bytes live in the object store, keyed the same). */
export const storedObjects = pgTable('stored_objects', {
  key: text('key').primaryKey(),
  sha256: hex('sha256').notNull(),
  contentType: text('content_type').notNull(),
  size: integer('size').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /**
   * Key of the image's square PNG thumbnail in the object store (server/metadata/image.ts), which
   * share cards decode instead of the original. Null for images stored before thumbnails existed.
   * The thumbnail has no row of its own: it goes with this object.
   */
  thumbnailKey: text('thumbnail_key'),
});
