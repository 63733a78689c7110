import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEVNET_CHAIN_ID } from '../../shared/chain/public-chain';
import { type DeploymentManifest, deploymentManifestSchema, envSchema, isPostgresUrl } from './schema';
import { type ChainConfig, type Config, ConfigError, type ObjectStoreConfig } from './types';

/**
 * The one place that reads `process.env`. Everything else receives a parsed {@link Config}.
 * Bad values fail at start-up with a message naming the variable, never deep inside a request.
 */

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

  // How the chain is indexed, whichever way it is named (variables or the devnet's manifest).
  const indexing = {
    finalityDepth: e.FINALITY_DEPTH,
    labels: {
      sniperBlocks: e.SNIPER_BLOCKS,
      bundlerWallets: e.BUNDLER_WALLETS,
      fundingHops: e.FUNDING_HOPS,
      fundingWindowBlocks: e.FUNDING_WINDOW_BLOCKS,
    },
    maxRange: e.INDEXER_MAX_RANGE,
    maxResponseBytes: e.INDEXER_MAX_RESPONSE_MB * 2 ** 20,
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    pollIntervalMs: e.INDEXER_POLL_MS,
    deferIndexesBlocks: e.INDEXER_DEFER_INDEXES_BLOCKS,
    historySegmentMinEvents: e.HISTORY_SEGMENT_MIN_EVENTS,
  };
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
        ...indexing,
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
          ...indexing,
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
      timeoutMs: e.S3_TIMEOUT_MS,
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
      ? {
          kind: 'postgres',
          url: e.DATABASE_URL,
          connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
          heartbeatMs: e.DATABASE_HEARTBEAT_MS,
          heartbeatDeadlineMs: e.DATABASE_HEARTBEAT_DEADLINE_MS,
        }
      : { kind: 'pglite', dir: path.join(dataDir, 'pglite') },
    replicas: {
      urls: replicaUrls,
      maxLagBlocks: e.REPLICA_MAX_LAG_BLOCKS,
      pollMs: e.REPLICA_POLL_MS,
      pollDeadlineMs: e.REPLICA_POLL_DEADLINE_MS,
    },
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
    readAcquireTimeoutMs: e.READ_ACQUIRE_TIMEOUT_MS,
    databaseSlotsPerClient: e.DATABASE_SLOTS_PER_CLIENT,
    databaseMsPerSecondPerClient: e.DATABASE_MS_PER_SECOND_PER_CLIENT,
    instanceWebWorkers: Math.max(1, e.LAUNCHDEX_WEB_WORKERS),
    readMissCost: e.READ_MISS_COST,
    exports: {
      maxRows: e.EXPORT_MAX_ROWS,
      deadlineMs: e.EXPORT_DEADLINE_MS,
      rowsPerRead: e.EXPORT_ROWS_PER_READ,
      chunkRows: e.EXPORT_CHUNK_ROWS,
      perProcess: e.EXPORTS_PER_PROCESS,
    },
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
