import {
  bigint,
  bigserial,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { blockNumber, hex, logProvenance, unixSeconds } from './columns';

/** Every decoded event of a launched token, with full provenance: what /activity lists. */
export const chainEvents = pgTable(
  'chain_events',
  {
    ...logProvenance,
    tokenAddress: hex('token_address').notNull(),
    kind: text('kind').notNull(),
    /** Decoded arguments, amounts as decimal strings. */
    data: jsonb('data').$type<Record<string, string>>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.blockNumber, t.logIndex] }),
    // A token's events of one kind in reverse chain order: /activity?kind= is one walk of it
    // however rare the kind is among the token's events, and the unfiltered page merges the walks
    // of every kind (server/api/routers/tokens/market.ts). One index for both, so the indexer
    // writes no more index entries per event than before.
    index('chain_events_token_kind_idx').on(
      t.tokenAddress,
      t.kind,
      t.blockNumber.desc().nullsFirst(),
      t.logIndex.desc().nullsFirst(),
    ),
  ],
);

/** Hashes of the last `FINALITY_DEPTH` indexed blocks: what reorg detection compares against. */
export const recentBlocks = pgTable('recent_blocks', {
  number: blockNumber('number').primaryKey(),
  hash: hex('hash').notNull(),
  parentHash: hex('parent_hash').notNull(),
  timestamp: unixSeconds('timestamp').notNull(),
});

/**
 * The indexer's progress. Written in the same transaction as the data it covers, so a reader
 * that sees a row of block N in a snapshot also sees indexed_through_block >= N.
 */
export const indexerCheckpoint = pgTable('indexer_checkpoint', {
  id: text('id').primaryKey(),
  chainId: integer('chain_id').notNull(),
  indexedThroughBlock: blockNumber('indexed_through_block').notNull(),
  blockHash: hex('block_hash').notNull(),
  blockTimestamp: unixSeconds('block_timestamp').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /**
   * The PROJECTION_VERSION (server/indexer/upgrade.ts) of the code that built this index from its
   * start block: set when the index begins (its first checkpoint) and by a rebuild, never by
   * following the chain, so an index folded by older rules stays marked as such. 0: an index
   * from before the version was kept.
   */
  projectionVersion: integer('projection_version').notNull().default(0),
  /**
   * The first block whose balances `balance_history` holds: 0 for an index built with it, the
   * block after the checkpoint for an index migrated to it (migration 0020); earlier blocks are
   * refused rather than answered from a history that does not reach them.
   */
  balanceHistoryFromBlock: blockNumber('balance_history_from_block').notNull().default(0),
});

export const CHECKPOINT_ID = 'main';

/**
 * The index's changes in the order they committed: one row per checkpoint move, an `advance`
 * (a write of blocks from_block..to_block) or a `rollback` (from the checkpoint at from_block
 * back to to_block: every row of a later block went). Written in the transaction that moves the
 * checkpoint (server/db/checkpoint.ts), `seq` gap-free under its lock, so a reader comparing two
 * sequence numbers knows every rollback between them and the lowest block it kept: the live
 * stream's reorg signal and resume tokens (docs/decisions.md). The last entries only are kept.
 */
export const indexChanges = pgTable('index_changes', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  kind: text('kind').$type<'advance' | 'rollback'>().notNull(),
  fromBlock: blockNumber('from_block').notNull(),
  toBlock: blockNumber('to_block').notNull(),
  /** The hash of `to_block`; null for a rollback to before the first indexed block. */
  blockHash: hex('block_hash'),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The undo journal: one row per write of blocks a reorg may still replace (within the finality
 * depth of the head), with the checkpoint it started from. A rollback undoes whole writes,
 * newest first, back to that checkpoint (server/indexer/reorg/rollback.ts).
 */
export const projectionWrites = pgTable('projection_writes', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  fromBlock: blockNumber('from_block').notNull(),
  toBlock: blockNumber('to_block').notNull(),
  /** The checkpoint before the write; null when the write was the index's first. */
  previousBlock: blockNumber('previous_block'),
  previousHash: hex('previous_hash'),
  previousTimestamp: unixSeconds('previous_timestamp'),
});

/**
 * Before-images of the rows a journaled write changed in place (tokens, balances, candles,
 * creators): the row as JSON, or null when the write created it. Appended rows (trades, chain
 * events, new tokens) need none: they are deleted by block number.
 */
export const projectionJournal = pgTable(
  'projection_journal',
  {
    writeSeq: bigint('write_seq', { mode: 'number' })
      .notNull()
      .references(() => projectionWrites.seq, { onDelete: 'cascade' }),
    tableName: text('table_name').notNull(),
    key: jsonb('key').notNull(),
    before: jsonb('before'),
  },
  (t) => [index('projection_journal_write_idx').on(t.writeSeq, t.tableName)],
);

/** PostgreSQL's byte array, as the drivers hand it over (postgres.js a Buffer, PGlite a Uint8Array). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType() {
    return 'bytea';
  },
});

/**
 * The event store: the raw logs each projection write read, and the block headers it held, as
 * one binary chunk per write (server/indexer/store/log-chunk.ts), written in that write's
 * transaction and deleted by the rollback that undoes it. Every projection can be recomputed
 * from these rows without the RPC (`npm run indexer -- rebuild`). Chunks of one index follow each
 * other block for block from its start block; `logs` counts the chunk's records.
 */
export const rawLogChunks = pgTable('raw_log_chunks', {
  fromBlock: blockNumber('from_block').primaryKey(),
  toBlock: blockNumber('to_block').notNull(),
  logs: integer('logs').notNull(),
  body: bytea('body').notNull(),
});
