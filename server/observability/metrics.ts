import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { WebhookGauges } from '../webhooks/gauges';
import { RouteLatency } from './route-latency';

/** An indexer's counters as this process's metrics read them (server/indexer fills them in). */
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
  /** Whole blocks (transactions included) read for the funding label (cumulative, this process). */
  fundingBlocks: number;
}

/** Where the index and the chain stand, read when Prometheus scrapes. */
export interface IndexProbe {
  /** Last fully indexed block from the database (every instance sees the same). */
  indexedThroughBlock(): Promise<number | null>;
  /** The chain head from the RPC, or null when no chain is configured or it did not answer. */
  chainHead(): Promise<number | null>;
  /** This process's indexer, when it runs one (embedded, or `npm run indexer`). */
  indexer(): IndexerStatus | undefined;
  /** Open /api/v1/stream connections of this process (web processes only). */
  streamClients?(): number;
  /** The most this process accepts (STREAM_MAX_CLIENTS); summed over a cluster's workers, the instance's. */
  streamMaxClients?(): number;
  /** This process's API reads on the database (web processes only). */
  databaseTime?(): DatabaseTimeTotals;
  /** The webhook targets' delivery state, from the database (undefined: it did not answer). */
  webhooks?(): Promise<WebhookGauges | undefined>;
  /** This process's read cache, once it exists (web processes with READ_CACHE_MB > 0). */
  readCache?(): ReadCacheCounts | undefined;
  /** Reads routed to each database since start (`primary` or a replica's name). */
  databaseReads?(): Record<string, number> | undefined;
  /** Blocks each replica was behind the primary at its last poll (null: unknown). */
  replicaLag?(): Record<string, number | null> | undefined;
}

/** Cumulative outcomes of the read cache and what it holds. */
export interface ReadCacheCounts {
  hit: number;
  miss: number;
  joined: number;
  evicted: number;
  bytes: number;
  entries: number;
}

/**
 * Cumulative totals of this process's API reads on the database, read when Prometheus scrapes
 * (server/observability/database-time.ts counts them).
 */
export interface DatabaseTimeTotals {
  /** Reads that took a turn (REST reads the cache did not answer, tRPC queries). */
  reads: number;
  /** Seconds they held it: waiting for a pool session, then their statements. */
  heldSeconds: number;
  /** Seconds they waited for it behind their own client's reads (its slots or database time spent). */
  queuedSeconds: number;
  /** Reads that got no pool session within READ_ACQUIRE_TIMEOUT_MS. */
  acquireTimeouts: number;
}

export interface LaunchdexMetrics {
  registry: Registry;
  httpDuration: RouteLatency;
}

/**
 * One registry per process: HTTP latency per route template, the index position and lag, and
 * this process's indexer counters, plus Node's default process metrics.
 */
export function createMetrics(probe: IndexProbe): LaunchdexMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'launchdex_' });
  const httpDuration = new RouteLatency(
    'launchdex_http_request_duration_seconds',
    'HTTP request latency by method, route template and status class',
    [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  ).register(registry);

  // One read of the index and head per scrape, shared by the three gauges below.
  const position = perScrape(() =>
    Promise.all([probe.indexedThroughBlock(), probe.chainHead()]).then(([indexed, head]) => ({
      indexed,
      head,
    })),
  );
  // Every web worker reads the same checkpoint and head: across workers each is one value, not a sum.
  const positionGauge = (
    name: string,
    help: string,
    read: (at: { indexed: number | null; head: number | null }) => number | null,
  ) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      aggregator: 'max',
      async collect() {
        const value = read(await position());
        if (value !== null) this.set(value);
      },
    });
  positionGauge(
    'launchdex_indexed_block',
    'Last block whose events are fully indexed (database checkpoint)',
    (at) => at.indexed,
  );
  positionGauge('launchdex_chain_head_block', 'Chain head block number reported by the RPC', (at) => at.head);
  positionGauge('launchdex_indexer_lag_blocks', 'Chain head minus the indexed block', (at) =>
    at.indexed !== null && at.head !== null ? Math.max(0, at.head - at.indexed) : null,
  );

  // The indexer keeps cumulative counts; counters advance by the difference since the last scrape.
  const counted = (name: string, help: string, read: (status: IndexerStatus) => number) =>
    cumulative(registry, name, help, () => {
      const status = probe.indexer();
      return status && read(status);
    });
  counted('launchdex_indexer_blocks_total', 'Blocks indexed by this process', (s) => s.blocks);
  counted('launchdex_indexer_events_total', 'Chain events projected by this process', (s) => s.events);
  counted('launchdex_indexer_batches_total', 'Block ranges committed by this process', (s) => s.batches);
  counted('launchdex_indexer_reorgs_total', 'Reorgs rolled back by this process', (s) => s.reorgs);
  counted(
    'launchdex_indexer_funding_blocks_total',
    'Whole blocks read for the creator-funding label by this process',
    (s) => s.fundingBlocks,
  );
  const { readCache } = probe;
  if (readCache) {
    const seen = { hit: 0, miss: 0, joined: 0 };
    new Counter({
      name: 'launchdex_read_cache_requests_total',
      help: 'REST reads by how the read cache answered: hit (memory), joined (waited for the same answer being computed), miss (database)',
      labelNames: ['result'] as const,
      registers: [registry],
      collect() {
        const counts = readCache();
        if (!counts) return;
        for (const result of ['hit', 'miss', 'joined'] as const) {
          if (counts[result] > seen[result]) this.inc({ result }, counts[result] - seen[result]);
          seen[result] = counts[result];
        }
      },
    });
    new Gauge({
      name: 'launchdex_read_cache_bytes',
      help: 'Bytes the read cache holds (keys, bodies, tags, per-entry overhead)',
      registers: [registry],
      collect() {
        this.set(readCache()?.bytes ?? 0);
      },
    });
  }
  const { databaseReads, replicaLag } = probe;
  if (databaseReads) {
    const seen: Record<string, number> = {};
    new Counter({
      name: 'launchdex_db_reads_total',
      help: 'Reads routed to each database: REST GETs (cache hits included, their version is read there) and tRPC queries',
      labelNames: ['database'] as const,
      registers: [registry],
      collect() {
        for (const [database, count] of Object.entries(databaseReads() ?? {})) {
          if (count > (seen[database] ?? 0)) this.inc({ database }, count - (seen[database] ?? 0));
          seen[database] = count;
        }
      },
    });
  }
  if (replicaLag)
    new Gauge({
      name: 'launchdex_replica_lag_blocks',
      help: 'Blocks each read replica was behind the primary at its last poll (absent while unknown)',
      labelNames: ['replica'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [replica, lag] of Object.entries(replicaLag() ?? {}))
          if (lag !== null) this.set({ replica }, lag);
      },
    });
  const { streamClients, streamMaxClients } = probe;
  if (streamClients)
    new Gauge({
      name: 'launchdex_stream_clients',
      help: 'Open live stream (SSE) connections of this process',
      registers: [registry],
      collect() {
        this.set(streamClients());
      },
    });
  if (streamMaxClients)
    new Gauge({
      name: 'launchdex_stream_max_clients',
      help: 'Stream connections this process accepts before it answers 503 (STREAM_MAX_CLIENTS)',
      registers: [registry],
      collect() {
        this.set(streamMaxClients());
      },
    });
  if (probe.databaseTime) databaseTimeMetrics(registry, probe.databaseTime);
  if (probe.webhooks) webhookMetrics(registry, perScrape(probe.webhooks));
  return { registry, httpDuration };
}

/** `read`, called once for the gauges of one scrape however many of them ask. */
function perScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= read().finally(() => {
      setTimeout(() => {
        pending = undefined;
      }, 250);
    });
    return pending;
  };
}

/**
 * A counter that advances by what a cumulative total grew since the last scrape; a total that
 * starts again (a new term's indexer) is followed from where it starts. `read` answers undefined
 * while there is no total (no indexer in this process).
 */
function cumulative(registry: Registry, name: string, help: string, read: () => number | undefined): void {
  let seen = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const value = read();
      if (value === undefined) return;
      if (value > seen) this.inc(value - seen);
      seen = value;
    },
  });
}

function databaseTimeMetrics(registry: Registry, totals: () => DatabaseTimeTotals): void {
  cumulative(
    registry,
    'launchdex_db_read_turns_total',
    'API reads on the database (REST reads the read cache did not answer, tRPC queries)',
    () => totals().reads,
  );
  cumulative(
    registry,
    'launchdex_db_read_seconds_total',
    'Seconds API reads held their database turn: waiting for a pool session, then their statements',
    () => totals().heldSeconds,
  );
  cumulative(
    registry,
    'launchdex_db_read_queued_seconds_total',
    "Seconds API reads waited behind their own client's reads (DATABASE_SLOTS_PER_CLIENT, DATABASE_MS_PER_SECOND_PER_CLIENT)",
    () => totals().queuedSeconds,
  );
  cumulative(
    registry,
    'launchdex_db_acquire_timeouts_total',
    'API reads that got no pool session within READ_ACQUIRE_TIMEOUT_MS (503, or run again on the primary)',
    () => totals().acquireTimeouts,
  );
}

/** Every web process reads the same targets: across a cluster's workers each is one value, not a sum. */
function webhookMetrics(registry: Registry, read: () => Promise<WebhookGauges | undefined>): void {
  new Gauge({
    name: 'launchdex_webhook_targets',
    help: 'Webhook targets by delivery state: ok, retrying (failing for less than WEBHOOK_FAILING_AFTER_HOURS), failing',
    labelNames: ['state'] as const,
    registers: [registry],
    aggregator: 'max',
    async collect() {
      const gauges = await read();
      this.reset();
      if (gauges) for (const [state, count] of Object.entries(gauges.targets)) this.set({ state }, count);
    },
  });
  new Gauge({
    name: 'launchdex_webhook_delivery_lag_blocks',
    help: 'Per webhook target: blocks between the index head and its oldest undelivered event (0: nothing waits)',
    labelNames: ['target'] as const,
    registers: [registry],
    aggregator: 'max',
    async collect() {
      const gauges = await read();
      this.reset();
      if (gauges) for (const [target, lag] of Object.entries(gauges.lagBlocks)) this.set({ target }, lag);
    },
  });
}
