import { decodeFunctionResult, encodeFunctionData } from 'viem';
import { graduatorAbi, launchFactoryAbi } from '../chain/abis';
import type { ChainConfig } from '../config';
import { readCheckpoint } from '../db/checkpoint';
import type { Database } from '../db/client';
import { createPartitionKeeper } from '../db/partitions';
import { createBalanceBook, loadBalances } from './project/balance-book';
import { type BatchPlan, foldRange, type ProjectionContext, touchedTokens } from './project/fold';
import type { TokenState } from './project/state';
import { readTokenStates } from './project/token-rows';
import { writePlan } from './project/write';
import { findCommonAncestor } from './reorg/find-ancestor';
import { rollbackTo } from './reorg/rollback';
import { type RpcClient, RpcRangeError } from './rpc/client';
import { createAddressBook } from './sync/address-book';
import { fetchHeaders, RangeInconsistentError, splitAtBlock, splitRange } from './sync/fetch-range';
import { createRangeFeed } from './sync/range-feed';

export interface IndexerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

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
  /** Minimum time between progress lines during backfill. */
  progressIntervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface IndexerStatus {
  indexedThroughBlock: number | null;
  head: number | null;
  /** Blocks covered by committed ranges (cumulative, this process). */
  blocks: number;
  events: number;
  batches: number;
  reorgs: number;
  /** Cumulative milliseconds spent fetching from the RPC and projecting into the database. */
  fetchMs: number;
  projectMs: number;
  /** Parts of ranges handed on in several parts as their Transfers arrived. */
  streamedParts: number;
  /** Stored balances read because the balance book did not know them (cumulative, this process). */
  balanceReads: number;
}

/** The index's head no longer extends the chain: roll back, then continue. */
class ReorgSignal extends Error {
  override name = 'ReorgSignal';
  constructor(readonly checkpoint: number) {
    super(`reorg detected above block ${checkpoint}`);
  }
}

/**
 * The indexer: backfills from the start block, then follows the head by polling. Each range is
 * projected in one transaction together with the checkpoint, so a crash anywhere resumes from
 * the last committed block with no gap and no duplicate.
 *
 * Backfill is a pipeline over three resources that work at once: the RPC node serves the next
 * ranges (several in flight), this thread decodes and folds a range in memory while the
 * database writes the one before, and the database commits one range at a time, in order.
 * @example const indexer = createIndexer({ db, rpc, chain, logger }); await indexer.run(signal);
 */
export function createIndexer(options: IndexerOptions) {
  const { db, rpc, chain, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? chain.pollIntervalMs;
  const maxRange = options.maxRange ?? chain.maxRange;
  const targetLogs = options.targetLogsPerBatch ?? 10_000;
  const eventsPerWrite = options.eventsPerWrite ?? 25_000;
  const fetchConcurrency = options.fetchConcurrency ?? 3;
  const cachedTokens = options.cachedTokens ?? 20_000;
  const balances = createBalanceBook(options.cachedBalances ?? 500_000);
  const progressIntervalMs = options.progressIntervalMs ?? 2_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  let range = Math.min(options.initialRange ?? 2_000, maxRange);
  let context: ProjectionContext | undefined;
  const partitions = createPartitionKeeper(db);
  const book = createAddressBook(db, options.listedAddressLimit);
  /**
   * Post-fold state of recently touched tokens, oldest first, with the sequence number of the
   * last plan that touched each. Plans are folded ahead of their commit, so an entry touched by
   * an uncommitted plan is never evicted (the database does not hold that state yet); any
   * failure drops the whole cache.
   */
  const tokenCache = new Map<string, { state: TokenState; seq: number }>();
  let foldedSeq = 0;
  let committedSeq = 0;
  let highestHead = 0;
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
  };
  const progress = { startedAt: Date.now(), lastAt: 0, startBlock: 0, events: 0 };

  async function call<T>(to: string, data: string): Promise<T> {
    return rpc.request<T>('eth_call', [{ to, data }, 'latest']);
  }

  async function loadContext(): Promise<ProjectionContext> {
    const factory = chain.factoryAddress.toLowerCase();
    const graduatorResult = await call<`0x${string}`>(
      factory,
      encodeFunctionData({ abi: launchFactoryAbi, functionName: 'graduator' }),
    );
    const graduator = decodeFunctionResult({
      abi: launchFactoryAbi,
      functionName: 'graduator',
      data: graduatorResult,
    }).toLowerCase();
    const stableResult = await call<`0x${string}`>(
      graduator,
      encodeFunctionData({ abi: graduatorAbi, functionName: 'stable' }),
    );
    const stable = decodeFunctionResult({
      abi: graduatorAbi,
      functionName: 'stable',
      data: stableResult,
    }).toLowerCase();
    return {
      chainId: chain.chainId,
      factory,
      graduator,
      stable,
      startBlock: Number(chain.startBlock),
      finalityDepth: chain.finalityDepth,
    };
  }

  async function handleReorg(checkpoint: number) {
    const ctx = context as ProjectionContext;
    const ancestor = await findCommonAncestor(db, rpc, checkpoint, ctx.finalityDepth);
    const result = await rollbackTo(db, ancestor);
    status.reorgs++;
    logger.warn(
      { ...result, from: checkpoint },
      `reorg: rolled back ${result.removedBlocks} block(s) to ${result.ancestor} (common ancestor ${ancestor})`,
    );
    // The rollback moved token states, balances and addresses back: cached copies are ahead of the database.
    tokenCache.clear();
    balances.clear();
    book.reset();
  }

  function reportProgress(to: number, head: number, force = false) {
    const now = Date.now();
    if (!force && now - progress.lastAt < progressIntervalMs) return;
    progress.lastAt = now;
    const seconds = Math.max(0.001, (now - progress.startedAt) / 1000);
    const blocksPerSecond = (to - progress.startBlock) / seconds;
    const eventsPerSecond = progress.events / seconds;
    const lag = head - to;
    const eta = blocksPerSecond > 0 ? lag / blocksPerSecond : Number.POSITIVE_INFINITY;
    logger.info(
      {
        indexedThroughBlock: to,
        head,
        lag,
        blocksPerSecond: Math.round(blocksPerSecond),
        eventsPerSecond: Math.round(eventsPerSecond),
        etaSeconds: Number.isFinite(eta) ? Math.round(eta) : null,
      },
      lag > 0
        ? `backfill: block ${to}/${head} · ${Math.round(blocksPerSecond)} blocks/s · ${Math.round(eventsPerSecond)} events/s · ETA ${Number.isFinite(eta) ? `${Math.ceil(eta)}s` : '?'}`
        : `at head ${to} · ${progress.events} events indexed`,
    );
  }

  /** The fold's view of token states: the cache, then the database for the rest. */
  async function statesFor(addresses: string[]): Promise<Map<string, TokenState>> {
    const states = new Map<string, TokenState>();
    const missing: string[] = [];
    for (const address of addresses) {
      const cached = tokenCache.get(address);
      if (cached) states.set(address, cached.state);
      else missing.push(address);
    }
    if (missing.length > 0)
      for (const [address, state] of await readTokenStates(db, missing)) states.set(address, state);
    return states;
  }

  function remember(plan: BatchPlan, seq: number) {
    for (const [address, state] of plan.states) {
      tokenCache.delete(address);
      tokenCache.set(address, { state, seq });
    }
    balances.remember(plan, seq);
  }

  function evict() {
    for (const [address, entry] of tokenCache) {
      if (tokenCache.size <= cachedTokens || entry.seq > committedSeq) break;
      tokenCache.delete(address);
    }
  }

  /**
   * Indexes [next, head] as a pipeline: fetch ahead, fold, write in order. Throws ReorgSignal
   * when a write finds that the chain moved under the index.
   */
  async function indexThrough(next: number, head: number): Promise<void> {
    const ctx = context as ProjectionContext;
    const finalBlock = head - ctx.finalityDepth;
    const feed = createRangeFeed({
      rpc,
      sets: { factory: ctx.factory, book, tokens: new Set(), pools: new Map() },
      from: next,
      to: head,
      rangeSize: range,
      maxRange,
      targetLogs,
      concurrency: fetchConcurrency,
      everyHeaderFrom: finalBlock,
      streamedPartEvents: options.streamedPartEvents,
      rangeSlices: options.rangeSlices,
    });
    // Two writes at a time: the last one started, and the one before it, which the last one
    // waits for before it commits (writePlan's `after`).
    let writing: Promise<void> = Promise.resolve();
    let earlier: Promise<void> = Promise.resolve();
    try {
      for (;;) {
        const fetchStarted = performance.now();
        const data = await feed.next();
        status.fetchMs += performance.now() - fetchStarted;
        range = feed.rangeSize;
        if (!data) break;
        if (data.streamed) status.streamedParts++;
        // Blocks within the finality depth are written apart from the rest: only their writes are journaled.
        const parts = splitAtBlock(data, finalBlock).flatMap((piece) => splitRange(piece, eventsPerWrite));
        for (const part of parts) {
          const foldStarted = performance.now();
          const states = await statesFor(touchedTokens(part));
          // Evicted here and nowhere else: a write that commits while the balances are read must
          // not evict a token this part relies on without having asked for it.
          balances.evict(committedSeq);
          status.balanceReads += await loadBalances(db, balances, part.events);
          const plan = foldRange(part, ctx, states, balances.view);
          const seq = ++foldedSeq;
          remember(plan, seq);
          status.projectMs += performance.now() - foldStarted;
          // Writes commit in chain order; this plan was folded while the last ones wrote.
          await earlier;
          // The rows' partitions exist before the write that appends them (created apart: DDL
          // inside the write would hold the tables' locks for the whole write).
          const first = part.events[0];
          const last = part.events.at(-1);
          if (first && last) await partitions.ensure(first.blockNumber, last.blockNumber);
          // A write a reorg may still undo keeps the before-images of what it changes.
          earlier = writing;
          writing = write(plan, seq, head, plan.from > finalBlock, earlier);
          writing.catch(() => {});
        }
      }
      await writing;
    } catch (error) {
      feed.close();
      await writing.catch(() => {});
      // Plans folded ahead of a failed write left the caches ahead of the database: the next
      // step reads from what was committed.
      tokenCache.clear();
      balances.clear();
      book.reset();
      throw error;
    }
  }

  async function write(
    plan: BatchPlan,
    seq: number,
    head: number,
    journal: boolean,
    after: Promise<void>,
  ): Promise<void> {
    const started = performance.now();
    const result = await writePlan(db, context as ProjectionContext, plan, { journal, after });
    status.projectMs += performance.now() - started;
    if (result.status === 'reorg') throw new ReorgSignal(result.checkpoint.indexedThroughBlock);
    committedSeq = seq;
    evict();
    if (result.status === 'skipped') return;
    book.learn(
      plan.launches.map(({ event }) => event.token),
      plan.newPools,
    );
    status.events += plan.events;
    progress.events += plan.events;
    status.batches++;
    status.blocks += plan.to - plan.from + 1;
    status.indexedThroughBlock = plan.to;
    reportProgress(plan.to, head, plan.to === head);
  }

  /**
   * One step: index up to the chain head as it is now, or detect a reorg at the tip, or report
   * that the index is at the head. Returns whether the index has caught up with the chain head.
   */
  async function step(): Promise<{ caughtUp: boolean; idle?: boolean }> {
    context ??= await loadContext();
    await book.load();
    const head = Number.parseInt(await rpc.request<string>('eth_blockNumber', []), 16);
    if (head < highestHead) {
      // A lagging node behind a load balancer: its head is not news, and not a reorg.
      logger.warn({ head, highestHead }, 'RPC head moved backwards; waiting for it to catch up');
      return { caughtUp: false, idle: true };
    }
    highestHead = head;
    status.head = head;
    const checkpoint = await readCheckpoint(db);
    const next = checkpoint ? checkpoint.indexedThroughBlock + 1 : context.startBlock;
    if (progress.startBlock === 0) progress.startBlock = next - 1;
    if (next > head) {
      if (checkpoint) {
        const tip = (await fetchHeaders(rpc, [checkpoint.indexedThroughBlock])).get(
          checkpoint.indexedThroughBlock,
        );
        if (tip && tip.hash !== checkpoint.blockHash) await handleReorg(checkpoint.indexedThroughBlock);
      }
      return { caughtUp: true };
    }
    try {
      await indexThrough(next, head);
    } catch (error) {
      if (error instanceof ReorgSignal) {
        await handleReorg(error.checkpoint);
        return { caughtUp: false };
      }
      if (error instanceof RpcRangeError) {
        range = Math.max(1, Math.floor(range / 2));
        logger.warn({ range }, `RPC refused the log range; shrinking to ${range} blocks`);
        return { caughtUp: false };
      }
      if (error instanceof RangeInconsistentError) {
        logger.warn({}, `${error.message}; retrying`);
        return { caughtUp: false };
      }
      throw error;
    }
    return { caughtUp: status.indexedThroughBlock === head };
  }

  return {
    status,
    step,
    /** Indexes until the checkpoint reaches the current head. */
    async syncToHead(): Promise<void> {
      for (;;) {
        const result = await step();
        if (result.idle) await sleep(Math.min(pollIntervalMs, 100));
        if (result.caughtUp) {
          // Confirm: one more step sees no new blocks and no reorg at the tip.
          if ((await step()).caughtUp) return;
        }
      }
    },
    /** Runs until `signal` aborts. Transient failures are logged and retried with backoff. */
    async run(signal: AbortSignal): Promise<void> {
      let failures = 0;
      while (!signal.aborted) {
        try {
          const { caughtUp, idle } = await step();
          failures = 0;
          if (caughtUp || idle) await sleep(pollIntervalMs);
        } catch (error) {
          if (error instanceof Error && error.name === 'ReorgTooDeepError') throw error;
          failures++;
          const delay = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
          logger.error(
            { err: error instanceof Error ? error.message : String(error), delay },
            'indexer step failed; retrying',
          );
          await sleep(delay);
        }
      }
    },
    /** Current chain head according to the RPC (for lag metrics). */
    async chainHead(): Promise<number> {
      return Number.parseInt(await rpc.request<string>('eth_blockNumber', []), 16);
    },
  };
}
export type Indexer = ReturnType<typeof createIndexer>;
