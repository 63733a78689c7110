import type { Checkpoint } from '../db/checkpoint';
import type { Database } from '../db/client';
import type { PartitionKeeper } from '../db/partitions';
import type { ProjectionCaches } from './caches';
import { loadBalances, loadTraderBalances } from './project/balance-book';
import { type BatchPlan, foldRange, type ProjectionContext, touchedTokens } from './project/fold';
import { foldTraders, loadTraders } from './project/trader-book';
import { defaultLabelParams } from './project/traders';
import { type WriteResult, writePlan } from './project/write';
import type { RpcClient } from './rpc/client';
import { logChunkOf } from './store/stored-logs';
import { createFundingReader } from './sync/funding-blocks';
import { splitAtBlock, splitRange } from './sync/range-algebra';
import { createRangeFeed, type RangeFeed } from './sync/range-feed';

/** What indexing up to a head did: reached it, or stopped at a write that found a reorg. */
export type PipelineResult = { status: 'done' } | { status: 'reorg'; checkpoint: Checkpoint };

export interface PipelineOptions {
  db: Database;
  rpc: RpcClient;
  caches: ProjectionCaches;
  partitions: PartitionKeeper;
  maxRange: number;
  targetLogs: number;
  eventsPerWrite: number;
  fetchConcurrency: number;
  streamedPartEvents?: number;
  rangeSlices?: number;
  /** The feed answered (`streamed`: with one of several parts of a range). */
  onFetched(fetchMs: number, streamed: boolean): void;
  /** A plan was folded; `balanceReads`: stored balances it read; `fundingBlocks`: whole blocks it read. */
  onFolded(foldMs: number, balanceReads: number, fundingBlocks: number): void;
  /** A write ended: committed (`applied`), covered already (`skipped`), or refused (`reorg`). */
  onWritten(plan: BatchPlan, result: WriteResult, writeMs: number): void;
}

/**
 * Backfill as a pipeline over three resources that work at once: the RPC node serves the next
 * ranges (several in flight), this thread decodes and folds a range in memory while the
 * database writes the one before, and the database commits one range at a time, in order.
 */
export function createPipeline(options: PipelineOptions) {
  const { db, caches, partitions } = options;
  let range = 0;
  let generation: string | undefined;
  let foldedSeq = 0;
  let committedSeq = 0;
  // Kept across steps: its blocks are checked against each range's headers when used.
  const funding = createFundingReader(options.rpc);

  async function write(
    context: ProjectionContext,
    plan: BatchPlan,
    seq: number,
    journal: boolean,
    after: Promise<WriteResult> | undefined,
  ): Promise<WriteResult> {
    const started = performance.now();
    const result = await writePlan(db, context, plan, { journal, after, generation });
    if (result.status !== 'reorg') {
      committedSeq = seq;
      caches.evictTokens(committedSeq);
    }
    options.onWritten(plan, result, performance.now() - started);
    return result;
  }

  return {
    /** The eth_getLogs range the next feed starts with (adapted by the feed, halved on refusals). */
    get rangeSize() {
      return range;
    },
    set rangeSize(size: number) {
      range = Math.max(1, Math.min(size, options.maxRange));
    },
    /** The index plans are folded from (readIndexGeneration); writes into another are refused. */
    set generation(value: string | undefined) {
      generation = value;
    },

    /**
     * Indexes [next, head]: fetch ahead, fold, write in order. Stops at the first write that
     * finds the chain moved under the index; a failure throws, with the caches cleared. With
     * `source`, its ranges from `next` on (stored logs: store/stored-feed.ts) instead of the RPC's,
     * `head` being the chain's (blocks within its finality depth are journaled).
     */
    async indexThrough(
      context: ProjectionContext,
      next: number,
      head: number,
      source?: RangeFeed,
    ): Promise<PipelineResult> {
      const finalBlock = head - context.finalityDepth;
      const feed =
        source ??
        createRangeFeed({
          rpc: options.rpc,
          sets: { factory: context.factory, book: caches.book, tokens: new Set(), pools: new Map() },
          from: next,
          to: head,
          rangeSize: range,
          maxRange: options.maxRange,
          targetLogs: options.targetLogs,
          concurrency: options.fetchConcurrency,
          everyHeaderFrom: finalBlock,
          streamedPartEvents: options.streamedPartEvents,
          rangeSlices: options.rangeSlices,
        });
      // Two writes at a time: the last one started, and the one before it, which the last one
      // waits for before it commits (writePlan's `after`).
      let writing: Promise<WriteResult> | undefined;
      let earlier: Promise<WriteResult> | undefined;
      try {
        for (;;) {
          const fetchStarted = performance.now();
          const data = await feed.next();
          options.onFetched(performance.now() - fetchStarted, data?.streamed === true);
          if (!source) range = feed.rangeSize;
          if (!data) break;
          // Blocks within the finality depth are written apart from the rest: only their writes are journaled.
          const parts = splitAtBlock(data, finalBlock).flatMap((piece) =>
            splitRange(piece, options.eventsPerWrite),
          );
          // Blocks the funding check read for these ranges' writes, stored with them (a replay).
          if (data.fundingBlocks) funding.preload(data.fundingBlocks);
          for (const part of parts) {
            const foldStarted = performance.now();
            const states = await caches.statesFor(touchedTokens(part));
            // Evicted here and nowhere else: a write that commits while the balances are read must
            // not evict a token this part relies on without having asked for it.
            caches.balances.evict(committedSeq);
            const balanceReads = await loadBalances(db, caches.balances, part.events);
            const plan = foldRange(part, context, states, caches.balances.view);
            // As balances: evicted just before the read of what the book does not know.
            caches.traders.evict(committedSeq);
            await loadTraders(db, caches.traders, plan);
            await loadTraderBalances(db, caches.balances, plan);
            const labels = context.labels ?? defaultLabelParams;
            const blocksBefore = funding.blocksRead;
            const funded = await funding.funded(plan, caches.traders.view, labels);
            plan.rawLogs = logChunkOf(part, funding.takeNew());
            foldTraders(plan, caches.traders.view, caches.balances.view, labels, funded);
            const seq = ++foldedSeq;
            caches.remember(plan, seq);
            options.onFolded(
              performance.now() - foldStarted,
              balanceReads,
              funding.blocksRead - blocksBefore,
            );
            // Writes commit in chain order; this plan was folded while the last ones wrote.
            const before = await earlier;
            if (before?.status === 'reorg') return await stop(before);
            // The rows' partitions exist before the write that appends them (created apart: DDL
            // inside the write would hold the tables' locks for the whole write).
            const first = part.events[0];
            const last = part.events.at(-1);
            if (first && last) await partitions.ensure(first.blockNumber, last.blockNumber);
            // A write a reorg may still undo keeps the before-images of what it changes.
            earlier = writing;
            writing = write(context, plan, seq, plan.from > finalBlock, earlier);
            writing.catch(() => {});
          }
        }
        const result = await writing;
        return result?.status === 'reorg' ? await stop(result) : { status: 'done' };
      } catch (error) {
        await stop();
        throw error;
      }

      /** Abandons the feed and the writes after a reorg or a failure. */
      async function stop(reorg?: Extract<WriteResult, { status: 'reorg' }>): Promise<PipelineResult> {
        feed.close();
        funding.unstored();
        await writing?.catch(() => {});
        // Plans folded ahead of the write that stopped left the caches ahead of the database:
        // the next step reads from what was committed.
        caches.clear();
        return reorg ? { status: 'reorg', checkpoint: reorg.checkpoint } : { status: 'done' };
      }
    },
  };
}
export type Pipeline = ReturnType<typeof createPipeline>;
