/** Where launch contracts live and from which block to index them. */
export interface ChainConfig {
  rpcUrl: string;
  chainId: number;
  factoryAddress: `0x${string}`;
  /** The swap router the trade panel sends graduated tokens' trades through (none: no DEX trading). */
  routerAddress?: `0x${string}` | undefined;
  startBlock: bigint;
  finalityDepth: number;
  /** Trader labels (docs/api.md "Traders, PnL and labels"): sniper window, bundle size, funding hops and window. */
  labels?: { sniperBlocks: number; bundlerWallets: number; fundingHops: number; fundingWindowBlocks: number };
  /** Largest eth_getLogs block range the indexer grows to. */
  maxRange: number;
  /** Largest RPC response read; a larger eth_getLogs answer is retried as a smaller range. */
  maxResponseBytes?: number;
  /** RPC_TIMEOUT_MS: an RPC request (its answer read whole) that takes longer is retried (default 15000). */
  rpcTimeoutMs?: number;
  pollIntervalMs: number;
  /** An index from scratch this many blocks or more behind the head defers the traders' sort indexes (0: never). */
  deferIndexesBlocks?: number;
  /** The fewest holder rows a token's balance history segment takes (docs/indexer.md, "Balance history"). */
  historySegmentMinEvents?: number;
}

export type ObjectStoreConfig =
  | { kind: 'filesystem'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      region: string;
      endpoint: string | undefined;
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
      forcePathStyle: boolean;
      /** S3_TIMEOUT_MS: a request (its answer read whole) that takes longer fails (default 10000). */
      timeoutMs: number;
    };

export type DatabaseConfig =
  | {
      kind: 'postgres';
      /** One host or several (libpq's multi-host form, `target_session_attrs` any, read-write or primary). */
      url: string;
      /** DATABASE_CONNECT_TIMEOUT_MS: a connect or a host probe ends after this (default 2000). */
      connectTimeoutMs?: number;
      /** DATABASE_HEARTBEAT_MS: how often a pool with sessions asks its server `select 1` (default 1000; 0: never). */
      heartbeatMs?: number;
      /** DATABASE_HEARTBEAT_DEADLINE_MS: a heartbeat unanswered this long cuts every session (default 2000). */
      heartbeatDeadlineMs?: number;
    }
  | { kind: 'pglite'; dir: string };

export interface Config {
  env: 'development' | 'production' | 'test';
  dataDir: string;
  database: DatabaseConfig;
  /**
   * Hot standbys of `database` that serve reads (DATABASE_READ_URLS, comma-separated; PostgreSQL
   * only), with how far behind the primary one may be before it is left out and how often each
   * one's position is read (docs/operations.md, "Read replicas").
   */
  /** REPLICA_POLL_DEADLINE_MS: a poll unanswered this long takes its replica out (and cuts its sessions). */
  replicas: { urls: string[]; maxLagBlocks: number; pollMs: number; pollDeadlineMs: number };
  /** Undefined when no RPC is configured and no devnet manifest exists yet. */
  chain: ChainConfig | undefined;
  /** `environment`: RPC_URL names an external chain; `devnet`: the local devnet's manifest (or none yet). */
  chainSource: 'environment' | 'devnet';
  deploymentManifestPath: string;
  /** Loopback port of the local anvil devnet that `npm run devnet` / `npm start` run. */
  devnetPort: number;
  objects: ObjectStoreConfig;
  /**
   * Whether the web process runs the indexer itself: `auto` does so on embedded PGlite (one
   * process may open it) and leaves PostgreSQL deployments to `npm run indexer`.
   */
  embeddedIndexer: boolean;
  redisUrl: string | undefined;
  /**
   * How long a rate-limit check waits for Redis (REDIS_COMMAND_TIMEOUT_MS) before the request is
   * let through (fail open, docs/security.md).
   */
  redisCommandTimeoutMs: number;
  /**
   * The DNS of `image_url` fetches: c-ares queries (never libuv's thread pool) to these servers
   * (IMAGE_DNS_SERVERS; undefined: the system's resolv.conf servers), cut after `timeoutMs`.
   */
  imageDns: { servers: string[] | undefined; timeoutMs: number };
  port: number;
  host: string;
  /**
   * The origin (and path prefix, if any) users reach the site at, without a trailing slash: every
   * absolute URL a page or share card carries is built from it, never from the request's Host or
   * X-Forwarded-Host (which a client chooses). PUBLIC_BASE_URL, else the URL this process listens
   * at, which `npm start` prints; `npm run serve` in production on a real chain refuses to start
   * without it ({@link webServingProblems}).
   */
  publicBaseUrl: string;
  /** Whether publicBaseUrl came from PUBLIC_BASE_URL or is the local default. */
  publicBaseUrlSource: 'environment' | 'default';
  /** The JSON-RPC URL browsers use for the chain (wallet reads, receipts); unset: see public-chain.ts. */
  publicRpcUrl: string | undefined;
  /** `auto`: offer the devnet test wallet on the local devnet (chain 31337) only; `off`: never. */
  devWallet: 'auto' | 'off';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * HMAC key of pagination cursors from CURSOR_SECRET; undefined: the key persisted in the
   * database (server/api/cursor-secret.ts), generated by the first instance that needs it.
   */
  cursorSecret: string | undefined;
  /**
   * Proxies in front of the app that append to X-Forwarded-For. 0: the client is the socket's
   * peer and the header is ignored; N: the Nth entry from the right (server/http/client-address.ts).
   */
  trustedProxyHops: number;
  /**
   * Per-client buckets: a sustained rate per minute (0 disables the bucket) and how many requests
   * may come at once. `reads` counts every request of every transport (REST, each call of a tRPC
   * batch, objects, stream connections, pages); `uploads` and `finalize` count the two writes
   * besides, with a burst of their whole per-minute quota.
   */
  rateLimits: Record<'reads' | 'uploads' | 'finalize', { perMinute: number; burst: number }>;
  /** Deadlines and per-client concurrency of the HTTP front (docs/security.md). */
  http: {
    /** Open connections per peer address (without a trusted proxy only). */
    connectionsPerClient: number;
    /** Calls one client may have running at once (a tRPC batch weighs its calls); more wait. */
    workPerClient: number;
    /** Requests of one client waiting for its share before more are refused with 429. */
    queuedPerClient: number;
    headersTimeoutMs: number;
    bodyIdleTimeoutMs: number;
    bodyTimeoutMs: number;
    /** Requests one connection may have in flight; a pipelined request past it is 429 and closes it. */
    pipelineMax: number;
    /**
     * An answer (the event stream excepted) still being sent this long after its head is cut:
     * the connection is destroyed, its buffers and work slot freed.
     */
    sendTimeoutMs: number;
    uploadsPerClient: number;
    streamsPerClient: number;
  };
  /**
   * What unbound drafts may hold (docs/security.md, "Uploads and the disk"): a draft not bound to
   * a launch within `ttlMs` is purged with its image unless another draft uses it; a client's
   * unbound drafts hold at most `budgetBytes` (0: no budget); a web process purges every
   * `purgeIntervalMs` (0: only `npm run purge-drafts`).
   */
  drafts: { ttlMs: number; budgetBytes: number; purgeIntervalMs: number };
  /** Bearer token that opens GET /api/metrics; unset: the endpoint answers 404. */
  metricsToken: string | undefined;
  /** Memory for serialized read answers per process (READ_CACHE_MB); 0 turns the cache off. */
  readCacheBytes: number;
  /**
   * PostgreSQL's statement_timeout on the web process's pool (READ_STATEMENT_TIMEOUT_MS; 0: none):
   * a backstop behind every read's known cost, so no query holds a connection for long.
   * The indexer and migrations use connections of their own without it.
   */
  readStatementTimeoutMs: number;
  /**
   * A read of the web process not running on a database session this long after it was made
   * (queued in the pool, or pipelined behind slow statements) fails as unavailable: 503 with
   * Retry-After, or, on a replica, runs again on the primary (READ_ACQUIRE_TIMEOUT_MS; 0: it waits).
   */
  readAcquireTimeoutMs: number;
  /**
   * Database reads one client may run at once per process (DATABASE_SLOTS_PER_CLIENT); its other
   * cache misses wait for its own slots, so one client holds at most this many of the pool's 10.
   */
  databaseSlotsPerClient: number;
  /**
   * Database time one client's reads may take per second, in ms per instance
   * (DATABASE_MS_PER_SECOND_PER_CLIENT; 0: unbounded); server/api/database-share.ts.
   */
  databaseMsPerSecondPerClient: number;
  /**
   * How many web workers this instance runs, as its cluster primary told this worker
   * (LAUNCHDEX_WEB_WORKERS; 1 without a primary): what the database slots are divided by.
   */
  instanceWebWorkers: number;
  /**
   * What a REST read answered from the database costs in the reads bucket (READ_MISS_COST), in
   * requests; an answer from memory costs 1. The rest is charged after the answer, into debt.
   */
  readMissCost: number;
  /**
   * CSV exports of a token's trades, holders and traders (docs/api.md, "CSV exports"): rows one
   * export may write (EXPORT_MAX_ROWS), its wall-clock deadline (EXPORT_DEADLINE_MS), rows that
   * count one read of the client's reads bucket (EXPORT_ROWS_PER_READ), rows one statement reads
   * (EXPORT_CHUNK_ROWS: an export holds one chunk's text at a time) and exports one process runs
   * at once (EXPORTS_PER_PROCESS; each holds a database session), one per client.
   */
  exports: {
    maxRows: number;
    deadlineMs: number;
    rowsPerRead: number;
    chunkRows: number;
    perProcess: number;
  };
  /** /api/ready fails when the index is more than this many blocks behind the chain head. */
  readyMaxLagBlocks: number;
  /** `npm run indexer` serves Prometheus metrics on this port (0: off). */
  metricsPort: number;
  /** GET /api/v1/stream: checkpoint poll, heartbeat, connections per process, queued events per client. */
  stream: { pollMs: number; heartbeatMs: number; maxClients: number; maxQueued: number };
  /**
   * Webhook delivery (docs/operations.md, "Webhooks"): whether this web process runs a delivery
   * worker, each POST's deadline, targets delivered to at once, the outbox poll, the retry
   * backoff, and the test-only loopback allowance (WEBHOOK_ALLOW_LOOPBACK, never in production).
   */
  webhooks: {
    worker: boolean;
    timeoutMs: number;
    concurrency: number;
    pollMs: number;
    retry: { baseMs: number; maxMs: number; failingAfterMs: number };
    allowLoopback: boolean;
  };
  /**
   * Processes `npm run serve` runs (`--workers` overrides): `auto` is one per core on PostgreSQL;
   * PGlite always gets one (server/http/cluster/worker-count.ts).
   */
  webWorkers: number | 'auto';
}

/** Raised for any invalid setting; its message lists every offending variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: readonly { variable: string; message: string }[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
  }
}
