import { sql } from 'drizzle-orm';
import { normalizeSearchText, searchTermsFor } from '../../../shared/search-text';
import { bulkInsert, copyLines, jsonRecordset, stagedRelation, textArray } from '../../db/bulk';
import {
  advanceCheckpoint,
  type Checkpoint,
  readCheckpoint,
  readIndexGeneration,
  withCheckpointLock,
} from '../../db/checkpoint';
import type { Database } from '../../db/client';
import { bumpReadVersion } from '../../db/read-version';
import {
  balanceHistory,
  candles,
  chainEvents,
  creators,
  recentBlocks,
  tokenSearchTerms,
  tokens,
  trades,
} from '../../db/schema';
import { bulkColumns, columnNames } from '../../db/table-columns';
import { enqueueWebhookEvents } from '../../webhooks/outbox';
import { IndexSwappedError, WriteConflictError } from '../errors';
import { storeLogChunk } from '../store/stored-logs';
import type { BatchPlan, ProjectionContext } from './fold';
import { beginJournaledWrite, journaledTables, pruneJournal, recordBefore } from './journal';
import { refreshWindowMetrics, type WindowMove, windowCandidates } from './metrics';
import type { TokenState } from './state';
import { indexerTokenColumns, tokenStateColumns, tokenStateRow } from './token-rows';
import { writeBalances } from './write-balances';
import { appendNewTraders, writeTraders } from './write-traders';

/** What writing a plan did: applied, already covered by the checkpoint, or refused as a reorg. */
export type WriteResult =
  | { status: 'applied'; checkpoint: Checkpoint }
  | { status: 'skipped' }
  /** The range's first block does not build on the indexed head: nothing was written. */
  | { status: 'reorg'; checkpoint: Checkpoint };

// Column lists read from the schema: the fold writes COPY lines in the schema's column order.
const tradeNames = columnNames(trades);
const eventNames = columnNames(chainEvents);
const historyNames = columnNames(balanceHistory);
const candleColumns = bulkColumns(candles);
const creatorColumns = bulkColumns(creators);
const recentBlockColumns = bulkColumns(recentBlocks);
const stateAssignments = Object.keys(tokenStateColumns)
  .filter((column) => column !== 'address')
  .map((column) => `"${column}" = x."${column}"`)
  .join(', ');

export interface WriteOptions {
  /** Record the before-images of what the write changes (blocks a reorg may still replace). */
  journal?: boolean;
  /** The write of the range before, still running (see writePlan). */
  after?: Promise<WriteResult | undefined>;
  /**
   * The index the plan was folded from (readIndexGeneration): a write that finds another one
   * under the checkpoint lock (a rebuild swapped in) throws IndexSwappedError, writing nothing.
   */
  generation?: string;
}

/**
 * Writes one folded range and moves the checkpoint, in one transaction. Appends go in by COPY;
 * balances, candles and creators are merged onto the stored rows by the database, so nothing
 * the fold produced is read back. A plan the checkpoint already covers changes nothing.
 *
 * With `after` (the write of the range before, still running), the write appends its trades and
 * events at once, in a transaction of its own, while that one merges: they are rows of later
 * blocks that conflict with nothing, and no reader sees them before this transaction commits.
 * It then waits for `after` to commit, takes the checkpoint and does the rest; if `after`
 * failed, or the checkpoint does not lead to this range, it rolls back whole. Two writers use
 * two of the database's cores this way (the merges are single statements of one backend).
 */
export async function writePlan(
  db: Database,
  context: ProjectionContext,
  plan: BatchPlan,
  options: WriteOptions = {},
): Promise<WriteResult> {
  const { after } = options;
  if (!after)
    return withCheckpointLock(db, (t, checkpoint) =>
      writeHolding(t, checkpoint, context, plan, options, false),
    );
  // What a write that took its appends early returns instead of committing: rolling back its
  // transaction is the only way to drop them, and drizzle's rollback() is a throw.
  let refused: Exclude<WriteResult, { status: 'applied' }> | undefined;
  try {
    return await db.transaction(async (tx) => {
      const t = tx as unknown as Database;
      const seen = await readCheckpoint(t);
      if (seen && seen.indexedThroughBlock >= plan.to) return { status: 'skipped' } as const;
      await appendRows(t, plan, !options.journal);
      const before = await after;
      // The write before found a reorg: this range does not build on the index either.
      const result =
        before?.status === 'reorg'
          ? before
          : await writeHolding(t, await readCheckpoint(t, true), context, plan, options, true);
      if (result.status !== 'applied') {
        refused = result;
        tx.rollback();
      }
      return result;
    });
  } catch (error) {
    if (refused) return refused;
    throw error;
  }
}

/** `traders`: the trader rows the range creates go in too (an unjournaled write: write-traders.ts). */
async function appendRows(t: Database, plan: BatchPlan, traders: boolean) {
  // No conflict clause on appends: the checkpoint guard makes a re-insert impossible, and if one
  // happened anyway the primary key would fail the batch loudly.
  await copyLines(t, 'trades', tradeNames, plan.tradeLines);
  await copyLines(t, 'chain_events', eventNames, plan.eventLines);
  await copyLines(t, 'balance_history', historyNames, plan.historyLines);
  if (plan.rawLogs) await storeLogChunk(t, plan.from, plan.to, plan.events, plan.rawLogs);
  if (traders) await appendNewTraders(t, plan);
}

/** The write, in a transaction that holds the checkpoint row; `appended` when appendRows ran. */
async function writeHolding(
  t: Database,
  checkpoint: Checkpoint | undefined,
  context: ProjectionContext,
  plan: BatchPlan,
  options: WriteOptions,
  appended: boolean,
): Promise<WriteResult> {
  if (options.generation !== undefined && (await readIndexGeneration(t)) !== options.generation)
    throw new IndexSwappedError('a rebuilt index was swapped in; continuing from its checkpoint');
  if (checkpoint && checkpoint.indexedThroughBlock >= plan.to) return { status: 'skipped' };
  const expectedFrom = checkpoint ? checkpoint.indexedThroughBlock + 1 : context.startBlock;
  if (plan.from !== expectedFrom)
    throw new WriteConflictError(`batch starts at ${plan.from} but the index continues at ${expectedFrom}`);
  if (checkpoint && plan.first && plan.first.parentHash !== checkpoint.blockHash)
    return { status: 'reorg', checkpoint };

  const window: WindowMove = {
    headTimestamp: plan.head.timestamp,
    // With no checkpoint there is no earlier window whose tokens could have left it.
    previousHeadTimestamp: checkpoint?.blockTimestamp ?? plan.head.timestamp,
    tokens: plan.tradedTokens,
  };
  const seq = options.journal ? await beginJournaledWrite(t, plan, checkpoint) : undefined;
  if (seq !== undefined) {
    // Every token row this write changes in place: traded or transferred, graduating, or in a moving window.
    const touched = [
      ...plan.updated,
      ...plan.balances.map((b) => b.token),
      ...plan.newPools.map((p) => p.token),
    ];
    await recordBefore(
      t,
      seq,
      journaledTables.tokens,
      sql`(select address from tokens where address = any(${textArray(touched)}) or ${windowCandidates(window)}) s`,
    );
  }

  if (plan.launches.length > 0) await insertLaunches(t, plan);
  if (plan.updated.length > 0) {
    const rows = plan.updated.map((address) => tokenStateRow(plan.states.get(address) as TokenState));
    await t.execute(
      sql`update tokens set ${sql.raw(stateAssignments)} from ${jsonRecordset(rows, tokenStateColumns)} where tokens.address = x.address`,
    );
  }
  // A journaled write records the trader rows' before-images before it creates any.
  if (!appended) await appendRows(t, plan, seq === undefined);
  if (plan.balances.length > 0) await writeBalances(t, plan, seq);
  if (plan.traders.length > 0) await writeTraders(t, plan, seq, seq === undefined);
  if (plan.candles.length > 0) await mergeCandles(t, plan, seq);
  if (plan.creators.size > 0) await mergeCreators(t, plan, seq);

  const head: Checkpoint = {
    indexedThroughBlock: plan.to,
    blockHash: plan.head.hash,
    blockTimestamp: plan.head.timestamp,
  };
  await refreshWindowMetrics(t, window);
  await bulkInsert(
    t,
    'recent_blocks',
    recentBlockColumns,
    plan.headers.map((h) => ({
      number: h.number,
      hash: h.hash,
      parent_hash: h.parentHash,
      timestamp: h.timestamp,
    })),
    'on conflict (number) do update set hash = excluded.hash, parent_hash = excluded.parent_hash, timestamp = excluded.timestamp',
  );
  await t.execute(sql`delete from recent_blocks where number < ${plan.to - context.finalityDepth}`);
  await pruneJournal(t, plan.to - context.finalityDepth);
  // The webhook outbox commits with the range (server/webhooks/outbox.ts).
  await enqueueWebhookEvents(t, plan.from, plan.to);
  await advanceCheckpoint(t, context.chainId, plan.from, head);
  await bumpReadVersion(t);
  return { status: 'applied', checkpoint: head };
}

/** A launched token's row: every column of `tokens` the indexer writes (a column left out of the row fails the insert or stays null). */
const launchColumns = bulkColumns(tokens, indexerTokenColumns);

async function insertLaunches(t: Database, plan: BatchPlan) {
  await bulkInsert(
    t,
    'tokens',
    launchColumns,
    plan.launches.map(({ event, createdAt }) => ({
      ...tokenStateRow(plan.states.get(event.token) as TokenState),
      name: event.name,
      symbol: event.symbol,
      name_search: normalizeSearchText(event.name),
      symbol_search: normalizeSearchText(event.symbol),
      decimals: 18,
      total_supply: event.totalSupply,
      metadata_hash: event.metadataHash,
      created_block: event.blockNumber,
      created_block_hash: event.blockHash,
      created_at: createdAt,
      created_transaction_hash: event.transactionHash,
      created_transaction_index: event.transactionIndex,
      created_log_index: event.logIndex,
      curve_address: event.curve,
      creator: event.creator,
      curve_supply: event.realTokenReserve,
      protocol_fee_bps: event.protocolFeeBps,
      creator_fee_bps: event.creatorFeeBps,
    })),
    'on conflict (address) do nothing',
  );
  await bulkInsert(
    t,
    'token_search_terms',
    bulkColumns(tokenSearchTerms),
    plan.launches.flatMap(({ event }) =>
      searchTermsFor(event.name, event.symbol).map(({ term, kind }) => ({
        term,
        kind,
        token_address: event.token,
      })),
    ),
    'on conflict do nothing',
  );
  // Operator moderation and finalized metadata live outside chain data; re-apply them.
  const fresh = plan.launches.map(({ event }) => event.token);
  await t.execute(
    sql`update tokens set excluded = true where address = any(${textArray(fresh)}) and address in (select token_address from token_exclusions)`,
  );
  await t.execute(sql`update tokens t set draft_id = d.id,
      has_links = coalesce(d.website_url, d.x_url, d.telegram_url, d.discord_url) is not null
    from metadata_drafts d where d.bound_token_address = t.address and t.address = any(${textArray(fresh)})`);
}

/** Merges the range's per-bucket aggregates onto the stored candles (open stays the first). */
async function mergeCandles(t: Database, plan: BatchPlan, seq: number | undefined) {
  const source = await stagedRelation(
    t,
    'candle_deltas',
    candleColumns,
    plan.candles.map(
      (c) =>
        `${c.tokenAddress}\t${c.intervalSeconds}\t${c.bucketStart}\t${c.open}\t${c.high}\t${c.low}\t${c.close}\t${c.volume}\t${c.trades}\t${c.lastBlockNumber}\t${c.lastLogIndex}`,
    ),
  );
  if (seq !== undefined) await recordBefore(t, seq, journaledTables.candles, source);
  const list = sql.raw(
    Object.keys(candleColumns)
      .map((name) => `"${name}"`)
      .join(', '),
  );
  await t.execute(
    sql`insert into candles (${list}) select ${list} from ${source}
      on conflict (token_address, interval_seconds, bucket_start) do update set
        high = greatest(candles.high, excluded.high), low = least(candles.low, excluded.low), close = excluded.close,
        volume = candles.volume + excluded.volume, trades = candles.trades + excluded.trades,
        last_block_number = excluded.last_block_number, last_log_index = excluded.last_log_index`,
  );
}

async function mergeCreators(t: Database, plan: BatchPlan, seq: number | undefined) {
  if (seq !== undefined)
    await recordBefore(
      t,
      seq,
      journaledTables.creators,
      sql`(select unnest(${textArray([...plan.creators.keys()])}) as address) s`,
    );
  await bulkInsert(
    t,
    'creators',
    creatorColumns,
    [...plan.creators].map(([address, d]) => ({
      address,
      tokens_launched: d.launched,
      tokens_graduated: d.graduated,
      first_launch_at: d.first === Number.MAX_SAFE_INTEGER ? d.last : d.first,
      last_launch_at: d.last,
      total_volume: d.volume,
    })),
    `on conflict (address) do update set tokens_launched = creators.tokens_launched + excluded.tokens_launched,
       tokens_graduated = creators.tokens_graduated + excluded.tokens_graduated,
       first_launch_at = case when excluded.tokens_launched > 0 then least(creators.first_launch_at, excluded.first_launch_at) else creators.first_launch_at end,
       last_launch_at = case when excluded.tokens_launched > 0 then greatest(creators.last_launch_at, excluded.last_launch_at) else creators.last_launch_at end,
       total_volume = creators.total_volume + excluded.total_volume`,
  );
}
