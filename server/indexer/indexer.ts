import type { ChainConfig } from '../config';
import { readCheckpoint, readIndexGeneration } from '../db/checkpoint';
import type { Database } from '../db/client';
import {
  backfillDeferredIndexes,
  buildDeferredIndexes,
  deferIndexes,
  deferredIndexNames,
} from '../db/deferred-indexes';
import { createPartitionKeeper } from '../db/partitions';
import type { IndexerStatus } from '../observability/metrics';
import { createProjectionCaches } from './caches';
import { loadProjectionContext } from './context';
import { asIndexerError, type IndexerError } from './errors';
import { runLoop, syncToHead } from './loop';
import { createPipeline } from './pipeline';
import { createProgressReporter, type IndexerLogger } from './progress';
import type { ProjectionContext } from './project/fold';
import { findCommonAncestor } from './reorg/find-ancestor';
import { rollbackTo } from './reorg/rollback';
import { type RpcClient, RpcRangeError } from './rpc/client';
import { createStoredFeed, storedPools } from './store/stored-feed';
import { fetchHeaders } from './sync/headers';

export type { IndexerLogger } from './progress';

export interface IndexerOptions {
  db: Database;
  rpc: RpcClient;
  chain: ChainConfig;
  logger: IndexerLogger;
  /** Wait between head polls once caught up. */
  pollIntervalMs?: number;
  /** First eth_getLogs range; it doubles on success up to maxRange and halves on range errors. */
  initialRange?: number;
  maxRange?: number;
  /** Aim for about this many logs per eth_getLogs range (the range adapts to the density). */
  targetLogsPerBatch?: number;
  /** Project at most about this many events per transaction (dense ranges are cut at blocks). */
  eventsPerWrite?: number;
  /** Ranges fetched ahead while earlier ones are projected. */
  fetchConcurrency?: number;
  /** Events per part when a range's activity is read as it arrives (sliced or over the size limit). */
  streamedPartEvents?: number;
  /** Block slices a range's activity is asked in at once (sync/fetch-range.ts; 1: one request). */
  rangeSlices?: number;
  /** Above this many stored tokens, ranges look emitters up instead of naming every token (sync/address-book.ts). */
  listedAddressLimit?: number;
  /** Token states kept in memory between ranges (the indexer is their only writer). */
  cachedTokens?: number;
  /** Stored balances (token, wallet) kept in memory between ranges (project/balance-book.ts). */
  cachedBalances?: number;
  /** Stored `traders` rows kept in memory between ranges (project/trader-book.ts). */
  cachedTraders?: number;
  /** Minimum time between progress lines during backfill. */
  progressIntervalMs?: number;
  /**
   * An index that starts this many blocks or more behind the head (or resumes such a backfill)
   * drops the traders' sort indexes and builds them once it is within that distance
   * (db/deferred-indexes.ts); 0 never does. Default: the chain's `deferIndexesBlocks`, else 1,000.
   */
  deferIndexesBlocks?: number;
  /** The indexes such a backfill defers (default backfillDeferredIndexes; a rebuild defers more). */
  deferredIndexes?: readonly string[];
  sleep?: (ms: number) => Promise<void>;
}

/** What one step did. */
export type StepResult =
  /** Ranges from `from` were committed through `to`; `caughtUp` when that is the head. */
  | { kind: 'advanced'; from: number; to: number; head: number; caughtUp: boolean }
  /** The index's head no longer extended the chain: it was rolled back to `ancestor`. */
  | { kind: 'reorg'; from: number; ancestor: number; removedBlocks: number }
  /** Nothing to do: the index is at the head (`at-head`), or the node's head is behind one seen before. */
  | { kind: 'idle'; head: number; reason: 'at-head' | 'head-behind' }
  /** The step stopped on `error`; its `retry` says whether and when to go on. */
  | { kind: 'halted'; error: IndexerError };

/**
 * The indexer: backfills from the start block, then follows the head by polling. Each range is
 * projected in one transaction together with the checkpoint, so a crash anywhere resumes from
 * the last committed block with no gap and no duplicate. The parts: the projection context
 * (context.ts), the caches that run ahead of the database (caches.ts), the fetch-fold-write
 * pipeline (pipeline.ts), progress lines (progress.ts), what each outcome leads to (loop.ts);
 * this module takes one step and says what it did.
 * @example const indexer = createIndexer({ db, rpc, chain, logger }); await indexer.run(signal);
 */
export function createIndexer(options: IndexerOptions) {
  const { db, rpc, chain, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? chain.pollIntervalMs;
  const maxRange = options.maxRange ?? chain.maxRange;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const caches = createProjectionCaches(db, {
    tokens: options.cachedTokens ?? 20_000,
    balances: options.cachedBalances ?? 500_000,
    // A trader row is about three times a balance's size in memory (seven bigints).
    traders: options.cachedTraders ?? 200_000,
    listedAddresses: options.listedAddressLimit,
  });
  const progress = createProgressReporter(logger, options.progressIntervalMs ?? 2_000);
  const status: IndexerStatus = {
    indexedThroughBlock: null,
    head: null,
    blocks: 0,
    events: 0,
    batches: 0,
    reorgs: 0,
    fetchMs: 0,
    projectMs: 0,
    streamedParts: 0,
    balanceReads: 0,
    fundingBlocks: 0,
  };
  let head = 0;
  const pipeline = createPipeline({
    db,
    rpc,
    caches,
    partitions: createPartitionKeeper(db),
    maxRange,
    targetLogs: options.targetLogsPerBatch ?? 10_000,
    eventsPerWrite: options.eventsPerWrite ?? 25_000,
    fetchConcurrency: options.fetchConcurrency ?? 3,
    streamedPartEvents: options.streamedPartEvents,
    rangeSlices: options.rangeSlices,
    onFetched(ms, streamed) {
      status.fetchMs += ms;
      if (streamed) status.streamedParts++;
    },
    onFolded(ms, balanceReads, fundingBlocks) {
      status.projectMs += ms;
      status.balanceReads += balanceReads;
      status.fundingBlocks += fundingBlocks;
    },
    onWritten(plan, result, ms) {
      status.projectMs += ms;
      if (result.status !== 'applied') return;
      caches.book.learn(
        plan.launches.map(({ event }) => event.token),
        plan.newPools,
      );
      status.events += plan.events;
      status.batches++;
      status.blocks += plan.to - plan.from + 1;
      status.indexedThroughBlock = plan.to;
      progress.committed(plan.events, plan.to, head);
    },
  });
  pipeline.rangeSize = options.initialRange ?? 2_000;
  let context: ProjectionContext | undefined;
  let highestHead = 0;
  /** The index the caches were filled from (readIndexGeneration). */
  let generation: string | undefined;
  const deferIndexesBlocks = options.deferIndexesBlocks ?? chain.deferIndexesBlocks ?? 1_000;
  /** Whether indexes are deferred now (read from the database on the first step). */
  let indexesDeferred: boolean | undefined;

  /**
   * Defers the sort indexes for a backfill that starts far from the head, keeps them deferred
   * while a resumed one is still far, and builds them once it is near: between ranges, before
   * any answer at the head, so the index is never at the head without them.
   */
  async function placeIndexes(fresh: boolean, backlog: number) {
    if (deferIndexesBlocks <= 0) return;
    indexesDeferred ??= (await deferredIndexNames(db)).length > 0;
    const far = backlog >= deferIndexesBlocks;
    if (far && fresh && !indexesDeferred) {
      const dropped = await deferIndexes(db, options.deferredIndexes ?? backfillDeferredIndexes);
      indexesDeferred = true;
      logger.info(
        { indexes: dropped, backlog },
        `backfill of ${backlog} blocks: ${dropped.join(', ')} dropped, built once the index is within ${deferIndexesBlocks} blocks of the head`,
      );
    } else if (!far && indexesDeferred) {
      logger.info({ backlog }, 'building the indexes deferred during the backfill…');
      await buildDeferredIndexes(db, ({ name, ms }) =>
        logger.info({ index: name, ms: Math.round(ms) }, `built ${name} in ${(ms / 1000).toFixed(2)}s`),
      );
      indexesDeferred = false;
    }
  }

  async function rollBack(ctx: ProjectionContext, checkpoint: number): Promise<StepResult> {
    const ancestor = await findCommonAncestor(db, rpc, checkpoint, ctx.finalityDepth);
    const result = await rollbackTo(db, ancestor);
    status.reorgs++;
    logger.warn(
      { ...result, from: checkpoint },
      `reorg: rolled back ${result.removedBlocks} block(s) to ${result.ancestor} (common ancestor ${ancestor})`,
    );
    // The rollback moved token states, balances and addresses back: cached copies are ahead of the database.
    caches.clear();
    return {
      kind: 'reorg',
      from: checkpoint,
      ancestor: result.ancestor,
      removedBlocks: result.removedBlocks,
    };
  }

  /**
   * Notices a rebuilt index swapped in since the last step (rebuild/swap.ts): what the caches
   * hold came from the old one. Every write checks it again under the checkpoint lock.
   */
  async function followGeneration() {
    const current = await readIndexGeneration(db);
    if (generation !== undefined && current !== generation) {
      logger.info({}, 'a rebuilt index was swapped in: continuing from its checkpoint');
      caches.clear();
      indexesDeferred = undefined;
    }
    generation = current;
    pipeline.generation = current;
  }

  async function advance(): Promise<StepResult> {
    context ??= await loadProjectionContext(rpc, chain);
    await followGeneration();
    await caches.book.load();
    const chainHead = Number.parseInt(await rpc.request<string>('eth_blockNumber', []), 16);
    if (chainHead < highestHead) {
      // A lagging node behind a load balancer: its head is not news, and not a reorg.
      logger.warn({ head: chainHead, highestHead }, 'RPC head moved backwards; waiting for it to catch up');
      return { kind: 'idle', head: chainHead, reason: 'head-behind' };
    }
    head = highestHead = chainHead;
    status.head = head;
    const checkpoint = await readCheckpoint(db);
    const next = checkpoint ? checkpoint.indexedThroughBlock + 1 : context.startBlock;
    await placeIndexes(!checkpoint, head - next + 1);
    progress.begin(next);
    if (next > head) {
      if (checkpoint) {
        const at = checkpoint.indexedThroughBlock;
        const tip = (await fetchHeaders(rpc, [at])).get(at);
        if (tip && tip.hash !== checkpoint.blockHash) return await rollBack(context, at);
      }
      return { kind: 'idle', head, reason: 'at-head' };
    }
    const result = await pipeline.indexThrough(
      indexesDeferred ? { ...context, traderIndexesDeferred: true } : context,
      next,
      head,
    );
    if (result.status === 'reorg') return await rollBack(context, result.checkpoint.indexedThroughBlock);
    const to = status.indexedThroughBlock ?? next - 1;
    return { kind: 'advanced', from: next, to, head, caughtUp: to === head };
  }

  /**
   * One step: index up to the chain head as it is now, or repair a reorg at the tip, or find the
   * index at the head. Failures are not thrown: they come back as `halted`, and a refused range
   * is halved here, so the next step asks a smaller one.
   */
  async function step(): Promise<StepResult> {
    try {
      return await advance();
    } catch (thrown) {
      const error = asIndexerError(thrown);
      if (error instanceof RpcRangeError) {
        pipeline.rangeSize = Math.floor(pipeline.rangeSize / 2);
        logger.warn(
          { range: pipeline.rangeSize },
          `RPC refused the log range; shrinking to ${pipeline.rangeSize} blocks`,
        );
      }
      return { kind: 'halted', error };
    }
  }

  /**
   * Indexes from another schema's event store (store/stored-feed.ts) instead of the RPC, from
   * the checkpoint up to `through` or the first block the store has no chunk for: a rebuild
   * (rebuild/). Every block must be final: the writes are not journaled. Returns the checkpoint.
   */
  async function replay(source: { schema: string }, through: number): Promise<number> {
    context ??= await loadProjectionContext(rpc, chain);
    await followGeneration();
    await caches.book.load();
    const checkpoint = await readCheckpoint(db);
    const next = checkpoint ? checkpoint.indexedThroughBlock + 1 : context.startBlock;
    if (next > through) return next - 1;
    head = highestHead = Math.max(highestHead, await indexer.chainHead());
    status.head = head;
    if (through > head - context.finalityDepth)
      throw new Error(`stored logs up to ${through} are not final (head ${head})`);
    await placeIndexes(!checkpoint, head - next + 1);
    progress.begin(next);
    const feed = createStoredFeed({
      db,
      schema: source.schema,
      from: next,
      to: through,
      pools: await storedPools(db),
      eventsPerRange: options.eventsPerWrite ?? 25_000,
    });
    const result = await pipeline.indexThrough(
      indexesDeferred ? { ...context, traderIndexesDeferred: true } : context,
      next,
      head,
      feed,
    );
    if (result.status === 'reorg')
      throw new Error(`stored logs from ${next} do not continue the index at its checkpoint`);
    return (await readCheckpoint(db))?.indexedThroughBlock ?? next - 1;
  }

  const loop = { step, logger, pollIntervalMs, sleep };
  const indexer = {
    status,
    step,
    replay,
    /** Indexes until the checkpoint reaches the current head (loop.ts). */
    syncToHead: () => syncToHead(loop),
    /** Runs until `signal` aborts (loop.ts: what each outcome leads to). */
    run: (signal: AbortSignal) => runLoop(loop, signal),
    /** Current chain head according to the RPC (for lag metrics). */
    async chainHead(): Promise<number> {
      return Number.parseInt(await rpc.request<string>('eth_blockNumber', []), 16);
    },
  };
  return indexer;
}
export type Indexer = ReturnType<typeof createIndexer>;
