import { sql } from 'drizzle-orm';
import { decodeFunctionResult, encodeFunctionData } from 'viem';
import { graduatorAbi, launchFactoryAbi } from '../chain/abis';
import type { ChainConfig } from '../config';
import { type Database, selectRows } from '../db/client';
import {
  applyBatch,
  type ProjectionContext,
  ReorgDetectedError,
  readCheckpoint,
} from './project/apply-batch';
import { findCommonAncestor } from './reorg/find-ancestor';
import { rollbackTo } from './reorg/rollback';
import { type RpcClient, RpcRangeError } from './rpc/client';
import { fetchHeaders, fetchRange, type RangeData, RangeInconsistentError } from './sync/fetch-range';

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
  /** Shrink the range when one batch returns more logs than this. */
  targetLogsPerBatch?: number;
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
}

/**
 * The indexer: backfills from the start block in adaptive ranges, then follows the head by
 * polling. Each range is projected in one transaction together with the checkpoint, so a crash
 * anywhere resumes from the last committed block with no gap and no duplicate.
 * @example const indexer = createIndexer({ db, rpc, chain, logger }); await indexer.run(signal);
 */
export function createIndexer(options: IndexerOptions) {
  const { db, rpc, chain, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? chain.pollIntervalMs;
  const maxRange = options.maxRange ?? chain.maxRange;
  const targetLogs = options.targetLogsPerBatch ?? 20_000;
  const progressIntervalMs = options.progressIntervalMs ?? 2_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  let range = Math.min(options.initialRange ?? 2_000, maxRange);
  let context: ProjectionContext | undefined;
  const tokens = new Set<string>();
  const pools = new Map<string, string>();
  let highestHead = 0;
  let prefetched: { from: number; to: number; data: Promise<RangeData> } | undefined;
  const status: IndexerStatus = {
    indexedThroughBlock: null,
    head: null,
    blocks: 0,
    events: 0,
    batches: 0,
    reorgs: 0,
    fetchMs: 0,
    projectMs: 0,
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

  async function loadKnownAddresses() {
    tokens.clear();
    pools.clear();
    const rows = await selectRows<{ address: string; pool_address: string | null }>(
      db,
      sql`select address, pool_address from tokens`,
    );
    for (const row of rows) {
      tokens.add(row.address);
      if (row.pool_address) pools.set(row.pool_address, row.address);
    }
  }

  async function handleReorg(checkpoint: number) {
    const ctx = context as ProjectionContext;
    const ancestor = await findCommonAncestor(db, rpc, checkpoint, ctx.finalityDepth);
    prefetched = undefined;
    const result = await rollbackTo(db, ancestor, ctx);
    status.reorgs++;
    logger.warn(
      { ...result, from: checkpoint },
      `reorg: rolled back ${result.removedBlocks} block(s) to ${ancestor}`,
    );
    await loadKnownAddresses();
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

  /**
   * One step: index the next range, or detect a reorg at the tip, or report that the index is
   * at the head. Returns whether the index has caught up with the chain head.
   */
  async function step(): Promise<{ caughtUp: boolean; idle?: boolean }> {
    context ??= await loadContext();
    if (status.batches === 0 && tokens.size === 0) await loadKnownAddresses();
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
    let to = Math.min(head, next + range - 1);
    let data: RangeData;
    const fetchStarted = performance.now();
    try {
      const ahead = prefetched?.from === next ? prefetched : undefined;
      prefetched = undefined;
      if (ahead) {
        to = ahead.to;
        data = await ahead.data;
      } else {
        data = await fetchRange(rpc, next, to, {
          factory: context.factory,
          tokens,
          pools: new Set(pools.keys()),
        });
      }
    } catch (error) {
      if (error instanceof RpcRangeError) {
        range = Math.max(1, Math.floor(range / 2));
        logger.warn({ range }, `RPC refused the log range; shrinking to ${range} blocks`);
        return { caughtUp: false };
      }
      if (error instanceof RangeInconsistentError) {
        logger.warn({ from: next, to }, `${error.message}; retrying`);
        return { caughtUp: false };
      }
      throw error;
    }
    if (to < head) {
      // Fetch the next range while this one is projected: RPC and database work overlap.
      const nextTokens = new Set(tokens);
      const nextPools = new Set(pools.keys());
      for (const event of data.events) {
        if (event.type === 'launch') nextTokens.add(event.token);
        if (event.type === 'graduation') nextPools.add(event.pool);
      }
      const from = to + 1;
      const until = Math.min(head, from + range - 1);
      const ahead = fetchRange(rpc, from, until, {
        factory: context.factory,
        tokens: nextTokens,
        pools: nextPools,
      });
      ahead.catch(() => {});
      prefetched = { from, to: until, data: ahead };
    }
    status.fetchMs += performance.now() - fetchStarted;
    const projectStarted = performance.now();
    try {
      const result = await applyBatch(db, context, data, pools);
      status.projectMs += performance.now() - projectStarted;
      for (const token of result.newTokens) tokens.add(token);
      for (const { pool, token } of result.newPools) pools.set(pool, token);
      status.events += result.events;
      progress.events += result.events;
      status.batches++;
      status.blocks += to - next + 1;
      status.indexedThroughBlock = to;
    } catch (error) {
      prefetched = undefined;
      if (error instanceof ReorgDetectedError && checkpoint) {
        await handleReorg(checkpoint.indexedThroughBlock);
        return { caughtUp: false };
      }
      throw error;
    }
    if (data.logCount > targetLogs) range = Math.max(1, Math.floor(range / 2));
    else if (data.logCount < targetLogs / 4) range = Math.min(maxRange, range * 2);
    reportProgress(to, head, to === head);
    return { caughtUp: to === head };
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
