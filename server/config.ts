import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { ADDRESS_PATTERN } from '../shared/address';
import { DEVNET_CHAIN_ID } from '../shared/chain/public-chain';

/**
 * The one place that reads `process.env`. Everything else receives a parsed {@link Config}.
 * Bad values fail at start-up with a message naming the variable, never deep inside a request.
 */

const address = z
  .string()
  .regex(new RegExp(ADDRESS_PATTERN), 'must be a 0x-prefixed 20-byte hex address')
  .transform((value) => value.toLowerCase() as `0x${string}`);

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const nonNegativeInt = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return fallback;
      if (!/^\d+$/.test(value.trim())) {
        ctx.addIssue({ code: 'custom', message: 'must be a non-negative integer' });
        return z.NEVER;
      }
      return Number(value.trim());
    });

const optionalUrl = (protocols: readonly string[]) =>
  optionalText.pipe(
    z
      .string()
      .refine(
        (value) => {
          try {
            return protocols.includes(new URL(value).protocol);
          } catch {
            return false;
          }
        },
        `must be a URL with scheme ${protocols.join(' or ')}`,
      )
      .optional(),
  );

function isPostgresUrl(value: string): boolean {
  try {
    return ['postgres:', 'postgresql:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const booleanFlag = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return false;
    if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true;
    if (['0', 'false', 'no'].includes(value.toLowerCase())) return false;
    ctx.addIssue({ code: 'custom', message: 'must be true or false' });
    return z.NEVER;
  });

/** What node:dns `setServers` takes: an IP address, with a port as `1.2.3.4:53` or `[::1]:53`. */
function isDnsServer(text: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  const withPort = /^([\d.]+):(\d{1,5})$/.exec(text);
  const [host, port] = bracketed
    ? [bracketed[1], bracketed[2]]
    : withPort
      ? [withPort[1], withPort[2]]
      : [text];
  return isIP(host ?? '') !== 0 && (port === undefined || (Number(port) >= 1 && Number(port) <= 65_535));
}

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).optional().default('development'),
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  DATABASE_READ_URLS: optionalText,
  REPLICA_MAX_LAG_BLOCKS: nonNegativeInt(16),
  REPLICA_POLL_MS: nonNegativeInt(500).pipe(z.number().min(10, 'must be at least 10')),
  DATA_DIR: optionalText,
  RPC_URL: optionalUrl(['http:', 'https:', 'ws:', 'wss:']),
  CHAIN_ID: optionalText.pipe(z.string().regex(/^\d+$/, 'must be a positive integer').optional()),
  FACTORY_ADDRESS: optionalText.pipe(address.optional()),
  SWAP_ROUTER_ADDRESS: optionalText.pipe(address.optional()),
  START_BLOCK: optionalText.pipe(z.string().regex(/^\d+$/, 'must be a non-negative integer').optional()),
  DEPLOYMENT_MANIFEST: optionalText,
  FINALITY_DEPTH: nonNegativeInt(64),
  SNIPER_BLOCKS: nonNegativeInt(3).pipe(z.number().min(1, 'must be at least 1')),
  BUNDLER_WALLETS: nonNegativeInt(4).pipe(z.number().min(2, 'must be at least 2')),
  INDEXER_MODE: z
    .enum(['auto', 'embedded', 'off'], { error: 'must be auto, embedded or off' })
    .optional()
    .default('auto'),
  INDEXER_MAX_RANGE: nonNegativeInt(50_000).pipe(z.number().min(1, 'must be at least 1')),
  INDEXER_POLL_MS: nonNegativeInt(500),
  INDEXER_MAX_RESPONSE_MB: nonNegativeInt(64).pipe(z.number().min(1, 'must be at least 1')),
  DEVNET_PORT: nonNegativeInt(8545).pipe(z.number().min(1, 'must be 1-65535').max(65535, 'must be 1-65535')),
  OBJECTS_DIR: optionalText,
  S3_BUCKET: optionalText,
  S3_REGION: optionalText,
  S3_ENDPOINT: optionalUrl(['http:', 'https:']),
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: booleanFlag,
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  PORT: nonNegativeInt(3000).pipe(z.number().min(1, 'must be 1-65535').max(65535, 'must be 1-65535')),
  HOST: optionalText,
  PUBLIC_BASE_URL: optionalUrl(['http:', 'https:']).transform((value, ctx) => {
    if (value === undefined) return undefined;
    const url = new URL(value);
    if (url.search || url.hash || url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'must be a base URL without query, fragment or credentials' });
      return z.NEVER;
    }
    // One spelling (lower-case host, default port dropped, no trailing slash) so links join with `/path`.
    return url.href.replace(/\/+$/, '');
  }),
  PUBLIC_RPC_URL: optionalUrl(['http:', 'https:']),
  DEV_WALLET: z.enum(['auto', 'off'], { error: 'must be auto or off' }).optional().default('auto'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .optional()
    .default('info'),
  CURSOR_SECRET: optionalText.pipe(
    z
      .string()
      .min(
        16,
        'must be at least 16 characters (or unset: a random key is generated and kept in the database)',
      )
      .optional(),
  ),
  TRUSTED_PROXY_HOPS: nonNegativeInt(0),
  RATE_LIMIT_UPLOADS_PER_MINUTE: nonNegativeInt(20),
  RATE_LIMIT_FINALIZE_PER_MINUTE: nonNegativeInt(60),
  RATE_LIMIT_READS_PER_MINUTE: nonNegativeInt(1_200),
  RATE_LIMIT_READS_BURST: nonNegativeInt(120).pipe(z.number().min(1, 'must be at least 1')),
  CONNECTIONS_PER_CLIENT: nonNegativeInt(128).pipe(z.number().min(1, 'must be at least 1')),
  WORK_PER_CLIENT: nonNegativeInt(16).pipe(z.number().min(1, 'must be at least 1')),
  QUEUED_PER_CLIENT: nonNegativeInt(64),
  DRAFT_TTL_HOURS: nonNegativeInt(24).pipe(z.number().min(1, 'must be at least 1')),
  DRAFT_BUDGET_MB: nonNegativeInt(50),
  DRAFT_PURGE_INTERVAL_MS: nonNegativeInt(600_000),
  UPLOADS_PER_CLIENT: nonNegativeInt(2).pipe(z.number().min(1, 'must be at least 1')),
  STREAMS_PER_CLIENT: nonNegativeInt(8).pipe(z.number().min(1, 'must be at least 1')),
  HTTP_HEADERS_TIMEOUT_MS: nonNegativeInt(10_000).pipe(z.number().min(100, 'must be at least 100')),
  HTTP_BODY_IDLE_TIMEOUT_MS: nonNegativeInt(10_000).pipe(z.number().min(100, 'must be at least 100')),
  HTTP_BODY_TIMEOUT_MS: nonNegativeInt(60_000).pipe(z.number().min(100, 'must be at least 100')),
  HTTP_PIPELINE_MAX: nonNegativeInt(4).pipe(z.number().min(1, 'must be at least 1')),
  HTTP_SEND_TIMEOUT_MS: nonNegativeInt(60_000).pipe(z.number().min(100, 'must be at least 100')),
  IMAGE_DNS_SERVERS: optionalText.pipe(
    z
      .string()
      .refine(
        (value) => value.split(',').every((server) => isDnsServer(server.trim())),
        'must be a comma-separated list of IP addresses, each with an optional port (1.1.1.1, [2606:4700::1111]:53)',
      )
      .optional(),
  ),
  IMAGE_DNS_TIMEOUT_MS: nonNegativeInt(3_000).pipe(z.number().min(100, 'must be at least 100')),
  REDIS_COMMAND_TIMEOUT_MS: nonNegativeInt(250).pipe(z.number().min(10, 'must be at least 10')),
  METRICS_TOKEN: optionalText.pipe(
    z.string().min(16, 'must be at least 16 characters (it guards the metrics endpoint)').optional(),
  ),
  READ_CACHE_MB: nonNegativeInt(64),
  READ_STATEMENT_TIMEOUT_MS: nonNegativeInt(2_000),
  DATABASE_SLOTS_PER_CLIENT: nonNegativeInt(1).pipe(z.number().min(1, 'must be at least 1')),
  DATABASE_MS_PER_SECOND_PER_CLIENT: nonNegativeInt(250),
  READ_MISS_COST: nonNegativeInt(4).pipe(z.number().min(1, 'must be at least 1')),
  READY_MAX_LAG_BLOCKS: nonNegativeInt(64),
  METRICS_PORT: nonNegativeInt(0).pipe(z.number().max(65535, 'must be 0-65535')),
  STREAM_POLL_MS: nonNegativeInt(500).pipe(z.number().min(10, 'must be at least 10')),
  STREAM_HEARTBEAT_MS: nonNegativeInt(15_000).pipe(z.number().min(10, 'must be at least 10')),
  STREAM_MAX_CLIENTS: nonNegativeInt(1_000),
  STREAM_MAX_QUEUED: nonNegativeInt(1_000).pipe(z.number().min(1, 'must be at least 1')),
  WEBHOOK_WORKER: z.enum(['on', 'off'], { error: 'must be on or off' }).optional().default('on'),
  WEBHOOK_TIMEOUT_MS: nonNegativeInt(10_000).pipe(z.number().min(100, 'must be at least 100')),
  WEBHOOK_CONCURRENCY: nonNegativeInt(8).pipe(z.number().min(1, 'must be at least 1')),
  WEBHOOK_POLL_MS: nonNegativeInt(200).pipe(z.number().min(10, 'must be at least 10')),
  WEBHOOK_RETRY_BASE_MS: nonNegativeInt(1_000).pipe(z.number().min(10, 'must be at least 10')),
  WEBHOOK_RETRY_MAX_MS: nonNegativeInt(3_600_000).pipe(z.number().min(10, 'must be at least 10')),
  WEBHOOK_FAILING_AFTER_HOURS: nonNegativeInt(24).pipe(z.number().min(1, 'must be at least 1')),
  WEBHOOK_ALLOW_LOOPBACK: booleanFlag,
  WEB_WORKERS: optionalText.pipe(
    z
      .string()
      .regex(/^(auto|[1-9]\d{0,3})$/, 'must be auto or a whole number from 1 to 9999')
      .optional(),
  ),
});

/** Where launch contracts live and from which block to index them. */
export interface ChainConfig {
  rpcUrl: string;
  chainId: number;
  factoryAddress: `0x${string}`;
  /** The swap router the trade panel sends graduated tokens' trades through (none: no DEX trading). */
  routerAddress?: `0x${string}` | undefined;
  startBlock: bigint;
  finalityDepth: number;
  /** Trader labels (docs/api.md "Traders, PnL and labels"): sniper window, bundle size. */
  labels?: { sniperBlocks: number; bundlerWallets: number };
  /** Largest eth_getLogs block range the indexer grows to. */
  maxRange: number;
  /** Largest RPC response read; a larger eth_getLogs answer is retried as a smaller range. */
  maxResponseBytes?: number;
  pollIntervalMs: number;
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
    };

export type DatabaseConfig = { kind: 'postgres'; url: string } | { kind: 'pglite'; dir: string };

export interface Config {
  env: 'development' | 'production' | 'test';
  dataDir: string;
  database: DatabaseConfig;
  /**
   * Hot standbys of `database` that serve reads (DATABASE_READ_URLS, comma-separated; PostgreSQL
   * only), with how far behind the primary one may be before it is left out and how often each
   * one's position is read (docs/operations.md, "Read replicas").
   */
  replicas: { urls: string[]; maxLagBlocks: number; pollMs: number };
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
   * What a REST read answered from the database costs in the reads bucket (READ_MISS_COST), in
   * requests; an answer from memory costs 1. The rest is charged after the answer, into debt.
   */
  readMissCost: number;
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

/** The file `npm run devnet` writes so the app can find the contracts it deployed. */
export const deploymentManifestSchema = z.object({
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  startBlock: z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]),
  contracts: z.object({ factory: address }).catchall(address),
});
export type DeploymentManifest = z.infer<typeof deploymentManifestSchema>;

/**
 * Parses an environment into a {@link Config}.
 * @example parseConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/launchdex' })
 */
export function parseConfig(
  env: Record<string, string | undefined>,
  options: { cwd?: string; readFile?: (file: string) => string | undefined } = {},
): Config {
  const cwd = options.cwd ?? process.cwd();
  const readFile = options.readFile ?? readFileIfPresent;
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '?'),
        message: issue.message,
      })),
    );
  }
  const e = parsed.data;
  const dataDir = path.resolve(cwd, e.DATA_DIR ?? '.data');
  const deploymentManifestPath = path.resolve(
    cwd,
    e.DEPLOYMENT_MANIFEST ?? path.join(dataDir, 'deployment.json'),
  );
  const problems: { variable: string; message: string }[] = [];

  let chain: ChainConfig | undefined;
  if (e.RPC_URL) {
    const missing = (['CHAIN_ID', 'FACTORY_ADDRESS', 'START_BLOCK'] as const).filter((name) => !e[name]);
    for (const variable of missing) problems.push({ variable, message: 'is required when RPC_URL is set' });
    if (missing.length === 0) {
      chain = {
        rpcUrl: e.RPC_URL,
        chainId: Number(e.CHAIN_ID),
        factoryAddress: e.FACTORY_ADDRESS as `0x${string}`,
        routerAddress: e.SWAP_ROUTER_ADDRESS as `0x${string}` | undefined,
        startBlock: BigInt(e.START_BLOCK as string),
        finalityDepth: e.FINALITY_DEPTH,
        labels: { sniperBlocks: e.SNIPER_BLOCKS, bundlerWallets: e.BUNDLER_WALLETS },
        maxRange: e.INDEXER_MAX_RANGE,
        maxResponseBytes: e.INDEXER_MAX_RESPONSE_MB * 2 ** 20,
        pollIntervalMs: e.INDEXER_POLL_MS,
      };
    }
  } else {
    const manifestText = readFile(deploymentManifestPath);
    if (manifestText !== undefined) {
      const manifest = parseManifest(manifestText);
      if (manifest.ok) {
        chain = {
          rpcUrl: manifest.value.rpcUrl,
          chainId: manifest.value.chainId,
          factoryAddress: manifest.value.contracts.factory,
          routerAddress: e.SWAP_ROUTER_ADDRESS ?? manifest.value.contracts.router,
          startBlock: BigInt(manifest.value.startBlock),
          finalityDepth: e.FINALITY_DEPTH,
          labels: { sniperBlocks: e.SNIPER_BLOCKS, bundlerWallets: e.BUNDLER_WALLETS },
          maxRange: e.INDEXER_MAX_RANGE,
          maxResponseBytes: e.INDEXER_MAX_RESPONSE_MB * 2 ** 20,
          pollIntervalMs: e.INDEXER_POLL_MS,
        };
      } else {
        problems.push({
          variable: 'DEPLOYMENT_MANIFEST',
          message: `${deploymentManifestPath}: ${manifest.error}`,
        });
      }
    }
  }

  let objects: ObjectStoreConfig;
  if (e.S3_BUCKET) {
    if (!e.S3_REGION && !e.S3_ENDPOINT) {
      problems.push({
        variable: 'S3_REGION',
        message: 'is required when S3_BUCKET is set (or set S3_ENDPOINT)',
      });
    }
    objects = {
      kind: 's3',
      bucket: e.S3_BUCKET,
      region: e.S3_REGION ?? 'us-east-1',
      endpoint: e.S3_ENDPOINT,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      forcePathStyle: e.S3_FORCE_PATH_STYLE,
    };
  } else {
    objects = { kind: 'filesystem', dir: path.resolve(cwd, e.OBJECTS_DIR ?? path.join(dataDir, 'objects')) };
  }

  const replicaUrls = (e.DATABASE_READ_URLS ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  if (replicaUrls.length > 0 && !e.DATABASE_URL)
    problems.push({
      variable: 'DATABASE_READ_URLS',
      message: 'needs DATABASE_URL: replicas are standbys of a PostgreSQL primary, PGlite has none',
    });
  for (const url of replicaUrls)
    if (!isPostgresUrl(url))
      problems.push({
        variable: 'DATABASE_READ_URLS',
        message: 'every entry must be a URL with scheme postgres: or postgresql:',
      });

  if (problems.length > 0) throw new ConfigError(problems);

  return {
    env: e.NODE_ENV,
    dataDir,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL }
      : { kind: 'pglite', dir: path.join(dataDir, 'pglite') },
    replicas: { urls: replicaUrls, maxLagBlocks: e.REPLICA_MAX_LAG_BLOCKS, pollMs: e.REPLICA_POLL_MS },
    chain,
    chainSource: e.RPC_URL ? 'environment' : 'devnet',
    deploymentManifestPath,
    devnetPort: e.DEVNET_PORT,
    objects,
    embeddedIndexer: e.INDEXER_MODE === 'embedded' || (e.INDEXER_MODE === 'auto' && !e.DATABASE_URL),
    redisUrl: e.REDIS_URL,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    imageDns: {
      servers: e.IMAGE_DNS_SERVERS?.split(',')
        .map((server) => server.trim())
        .filter(Boolean),
      timeoutMs: e.IMAGE_DNS_TIMEOUT_MS,
    },
    port: e.PORT,
    host: e.HOST ?? '127.0.0.1',
    publicBaseUrl: e.PUBLIC_BASE_URL ?? localBaseUrl(e.HOST ?? '127.0.0.1', e.PORT),
    publicBaseUrlSource: e.PUBLIC_BASE_URL ? 'environment' : 'default',
    publicRpcUrl: e.PUBLIC_RPC_URL,
    devWallet: e.DEV_WALLET,
    logLevel: e.LOG_LEVEL,
    cursorSecret: e.CURSOR_SECRET,
    trustedProxyHops: e.TRUSTED_PROXY_HOPS,
    rateLimits: {
      reads: { perMinute: e.RATE_LIMIT_READS_PER_MINUTE, burst: e.RATE_LIMIT_READS_BURST },
      uploads: {
        perMinute: e.RATE_LIMIT_UPLOADS_PER_MINUTE,
        burst: Math.max(1, e.RATE_LIMIT_UPLOADS_PER_MINUTE),
      },
      finalize: {
        perMinute: e.RATE_LIMIT_FINALIZE_PER_MINUTE,
        burst: Math.max(1, e.RATE_LIMIT_FINALIZE_PER_MINUTE),
      },
    },
    http: {
      connectionsPerClient: e.CONNECTIONS_PER_CLIENT,
      workPerClient: e.WORK_PER_CLIENT,
      queuedPerClient: e.QUEUED_PER_CLIENT,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      bodyIdleTimeoutMs: e.HTTP_BODY_IDLE_TIMEOUT_MS,
      bodyTimeoutMs: e.HTTP_BODY_TIMEOUT_MS,
      pipelineMax: e.HTTP_PIPELINE_MAX,
      sendTimeoutMs: e.HTTP_SEND_TIMEOUT_MS,
      uploadsPerClient: e.UPLOADS_PER_CLIENT,
      streamsPerClient: e.STREAMS_PER_CLIENT,
    },
    drafts: {
      ttlMs: e.DRAFT_TTL_HOURS * 3_600_000,
      budgetBytes: e.DRAFT_BUDGET_MB * 1_000_000,
      purgeIntervalMs: e.DRAFT_PURGE_INTERVAL_MS,
    },
    metricsToken: e.METRICS_TOKEN,
    readCacheBytes: e.READ_CACHE_MB * 1024 * 1024,
    readStatementTimeoutMs: e.READ_STATEMENT_TIMEOUT_MS,
    databaseSlotsPerClient: e.DATABASE_SLOTS_PER_CLIENT,
    databaseMsPerSecondPerClient: e.DATABASE_MS_PER_SECOND_PER_CLIENT,
    readMissCost: e.READ_MISS_COST,
    readyMaxLagBlocks: e.READY_MAX_LAG_BLOCKS,
    metricsPort: e.METRICS_PORT,
    stream: {
      pollMs: e.STREAM_POLL_MS,
      heartbeatMs: e.STREAM_HEARTBEAT_MS,
      maxClients: e.STREAM_MAX_CLIENTS,
      maxQueued: e.STREAM_MAX_QUEUED,
    },
    webhooks: {
      worker: e.WEBHOOK_WORKER === 'on',
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      pollMs: e.WEBHOOK_POLL_MS,
      retry: {
        baseMs: e.WEBHOOK_RETRY_BASE_MS,
        maxMs: Math.max(e.WEBHOOK_RETRY_MAX_MS, e.WEBHOOK_RETRY_BASE_MS),
        failingAfterMs: e.WEBHOOK_FAILING_AFTER_HOURS * 3_600_000,
      },
      allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK,
    },
    webWorkers: e.WEB_WORKERS === undefined || e.WEB_WORKERS === 'auto' ? 'auto' : Number(e.WEB_WORKERS),
  };
}

/** The URL a process listening at host:port is reached at from this machine (what `npm start` prints). */
export function localBaseUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/**
 * Settings the web server (`npm run serve`) needs beyond what parseConfig checks; the indexer and
 * the scripts do not serve pages and start without them. In production on a real chain (any but
 * the local devnet's id 31337) the public base URL must be given: a default of
 * `http://127.0.0.1:3000` would put loopback links in every share card.
 */
export function webServingProblems(config: Config): { variable: string; message: string }[] {
  if (
    config.env === 'production' &&
    config.publicBaseUrlSource === 'default' &&
    config.chain !== undefined &&
    config.chain.chainId !== DEVNET_CHAIN_ID
  )
    return [
      {
        variable: 'PUBLIC_BASE_URL',
        message: `is required in production on chain ${config.chain.chainId}: the URL users reach this site at (e.g. https://launchdex.example), which pages and share cards build their absolute links from`,
      },
    ];
  return [];
}

function parseManifest(text: string): { ok: true; value: DeploymentManifest } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'is not valid JSON' };
  }
  const result = deploymentManifestSchema.safeParse(json);
  if (!result.success) {
    return {
      ok: false,
      error: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    };
  }
  return { ok: true, value: result.data };
}

function readFileIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

let cached: Config | undefined;

/** The process-wide configuration, parsed on first use. */
export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
