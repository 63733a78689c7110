import { bigint, customType, integer, text } from 'drizzle-orm/pg-core';

/**
 * `numeric(78,0)` holds any uint256. The driver hands it over as decimal text; we work in bigint.
 * @dev both postgres.js and PGlite return numeric as string; a number would mean lost precision.
 */
export const uint256 = customType<{ data: bigint; driverData: string }>({
  dataType() {
    return 'numeric(78, 0)';
  },
  toDriver(value) {
    return value.toString();
  },
  fromDriver(value) {
    return BigInt(value);
  },
});

/** Block numbers and Unix seconds: far below 2^53, so plain numbers are exact. */
export const blockNumber = (name: string) => bigint(name, { mode: 'number' });
export const unixSeconds = (name: string) => bigint(name, { mode: 'number' });

/** Lowercase 0x-hex address or hash. */
export const hex = (name: string) => text(name);

/**
 * Chain provenance of a log-derived row. (block_number, log_index) identifies a log on the
 * canonical chain; after a reorg, rows above the common ancestor are deleted, so it stays unique.
 */
export const logProvenance = {
  blockNumber: blockNumber('block_number').notNull(),
  blockHash: hex('block_hash').notNull(),
  blockTimestamp: unixSeconds('block_timestamp').notNull(),
  transactionHash: hex('transaction_hash').notNull(),
  transactionIndex: integer('transaction_index').notNull(),
  logIndex: integer('log_index').notNull(),
};
