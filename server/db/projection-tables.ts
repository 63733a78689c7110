/**
 * Every table of the schema by what a rebuild (server/indexer/rebuild/) does with it. One list,
 * checked against the drizzle schema by a unit test, so a new table cannot be left out of a
 * rebuild: a projection table nobody swapped would keep its old rows under the new index.
 */

/**
 * The version of what the indexer writes. Bump it with every change to it that leaves an existing
 * index wrong: a migration adding a projection (its table is empty for the blocks already
 * indexed), a fold rule changed. An index whose checkpoint carries an older version is rebuilt
 * when the indexer starts (server/indexer/upgrade.ts; docs/operations.md, "Upgrades").
 * 1: the version of the first index to carry one (event store, trader totals, funding graph).
 * 2: balance history (balance_history, balances.since_block, the tokens' segments; migration 0020).
 */
export const PROJECTION_VERSION = 2;

/**
 * What the indexer derives from the chain, and its own bookkeeping of it (checkpoint, recent
 * hashes, undo journal, deferred indexes, the event store): a rebuild writes them anew in a
 * schema of their own and swaps them in whole, in one transaction.
 */
export const projectionTables = [
  'tokens',
  'token_search_terms',
  'trades',
  'chain_events',
  'balances',
  'balance_history',
  'candles',
  'creators',
  'traders',
  'trader_totals',
  'recent_blocks',
  'indexer_checkpoint',
  'projection_writes',
  'projection_journal',
  'deferred_indexes',
  'raw_log_chunks',
] as const;

/**
 * Tables the indexer writes beside its projections whose live rows must stay as they are: the
 * stream's change log, the read-model counter, the webhook targets and their outbox. A rebuild
 * writes into empty copies of them (no target: nothing is queued for history) and drops those;
 * the swap moves the live ones on by what the swapped index holds beyond the old one.
 */
export const rebuildScratchTables = [
  'index_changes',
  'read_model_version',
  'webhook_targets',
  'webhook_outbox',
] as const;

/**
 * Data that is not the chain's (drafts and their bindings, moderation, objects, keys): a rebuild
 * reads the live rows (bindings and exclusions are applied to the tokens it creates) and never
 * copies or moves them.
 */
export const offChainTables = [
  'metadata_drafts',
  'stored_objects',
  'service_secrets',
  'token_exclusions',
] as const;
