import { isIP } from 'node:net';
import { z } from 'zod';
import { ADDRESS_PATTERN } from '../../shared/address';
import { HISTORY_SEGMENT_MIN_EVENTS } from '../db/schema/balances';
import { DATABASE_DEADLINE_DEFAULTS, parseDatabaseUrl } from './database-url';

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

/** A whole number of at least `min`, `fallback` when unset. */
const intAtLeast = (fallback: number, min: number) =>
  nonNegativeInt(fallback).pipe(z.number().min(min, `must be at least ${min}`));

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

/** Why a DATABASE_URL (one host or several, libpq's form) cannot be used; undefined when it can. */
function databaseUrlProblem(value: string): string | undefined {
  try {
    parseDatabaseUrl(value);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A `postgres:` or `postgresql:` URL (DATABASE_READ_URLS entries are checked with it). */
export function isPostgresUrl(value: string): boolean {
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

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).optional().default('development'),
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .superRefine((value, context) => {
        const problem = databaseUrlProblem(value);
        if (problem) context.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
  ),
  DATABASE_CONNECT_TIMEOUT_MS: intAtLeast(DATABASE_DEADLINE_DEFAULTS.connectTimeoutMs, 100),
  DATABASE_HEARTBEAT_MS: nonNegativeInt(DATABASE_DEADLINE_DEFAULTS.heartbeatMs),
  DATABASE_HEARTBEAT_DEADLINE_MS: intAtLeast(DATABASE_DEADLINE_DEFAULTS.heartbeatDeadlineMs, 100),
  DATABASE_READ_URLS: optionalText,
  REPLICA_MAX_LAG_BLOCKS: nonNegativeInt(16),
  REPLICA_POLL_MS: intAtLeast(250, 10),
  REPLICA_POLL_DEADLINE_MS: intAtLeast(750, 50),
  DATA_DIR: optionalText,
  RPC_URL: optionalUrl(['http:', 'https:', 'ws:', 'wss:']),
  CHAIN_ID: optionalText.pipe(z.string().regex(/^\d+$/, 'must be a positive integer').optional()),
  FACTORY_ADDRESS: optionalText.pipe(address.optional()),
  SWAP_ROUTER_ADDRESS: optionalText.pipe(address.optional()),
  START_BLOCK: optionalText.pipe(z.string().regex(/^\d+$/, 'must be a non-negative integer').optional()),
  DEPLOYMENT_MANIFEST: optionalText,
  FINALITY_DEPTH: nonNegativeInt(64),
  SNIPER_BLOCKS: intAtLeast(3, 1),
  BUNDLER_WALLETS: intAtLeast(4, 2),
  HISTORY_SEGMENT_MIN_EVENTS: intAtLeast(HISTORY_SEGMENT_MIN_EVENTS, 1),
  FUNDING_HOPS: nonNegativeInt(2),
  FUNDING_WINDOW_BLOCKS: intAtLeast(300, 1),
  INDEXER_MODE: z
    .enum(['auto', 'embedded', 'off'], { error: 'must be auto, embedded or off' })
    .optional()
    .default('auto'),
  INDEXER_MAX_RANGE: intAtLeast(50_000, 1),
  INDEXER_POLL_MS: nonNegativeInt(500),
  INDEXER_MAX_RESPONSE_MB: intAtLeast(64, 1),
  RPC_TIMEOUT_MS: intAtLeast(15_000, 100),
  INDEXER_DEFER_INDEXES_BLOCKS: nonNegativeInt(1_000),
  DEVNET_PORT: nonNegativeInt(8545).pipe(z.number().min(1, 'must be 1-65535').max(65535, 'must be 1-65535')),
  OBJECTS_DIR: optionalText,
  S3_BUCKET: optionalText,
  S3_REGION: optionalText,
  S3_ENDPOINT: optionalUrl(['http:', 'https:']),
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: booleanFlag,
  S3_TIMEOUT_MS: intAtLeast(10_000, 100),
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
  RATE_LIMIT_READS_BURST: intAtLeast(120, 1),
  CONNECTIONS_PER_CLIENT: intAtLeast(128, 1),
  WORK_PER_CLIENT: intAtLeast(16, 1),
  QUEUED_PER_CLIENT: nonNegativeInt(64),
  DRAFT_TTL_HOURS: intAtLeast(24, 1),
  DRAFT_BUDGET_MB: nonNegativeInt(50),
  DRAFT_PURGE_INTERVAL_MS: nonNegativeInt(600_000),
  UPLOADS_PER_CLIENT: intAtLeast(2, 1),
  STREAMS_PER_CLIENT: intAtLeast(8, 1),
  HTTP_HEADERS_TIMEOUT_MS: intAtLeast(10_000, 100),
  HTTP_BODY_IDLE_TIMEOUT_MS: intAtLeast(10_000, 100),
  HTTP_BODY_TIMEOUT_MS: intAtLeast(60_000, 100),
  HTTP_PIPELINE_MAX: intAtLeast(4, 1),
  HTTP_SEND_TIMEOUT_MS: intAtLeast(60_000, 100),
  IMAGE_DNS_SERVERS: optionalText.pipe(
    z
      .string()
      .refine(
        (value) => value.split(',').every((server) => isDnsServer(server.trim())),
        'must be a comma-separated list of IP addresses, each with an optional port (1.1.1.1, [2606:4700::1111]:53)',
      )
      .optional(),
  ),
  IMAGE_DNS_TIMEOUT_MS: intAtLeast(3_000, 100),
  REDIS_COMMAND_TIMEOUT_MS: intAtLeast(250, 10),
  METRICS_TOKEN: optionalText.pipe(
    z.string().min(16, 'must be at least 16 characters (it guards the metrics endpoint)').optional(),
  ),
  READ_CACHE_MB: nonNegativeInt(64),
  READ_STATEMENT_TIMEOUT_MS: nonNegativeInt(2_000),
  READ_ACQUIRE_TIMEOUT_MS: nonNegativeInt(5_000),
  DATABASE_SLOTS_PER_CLIENT: intAtLeast(1, 1),
  DATABASE_MS_PER_SECOND_PER_CLIENT: nonNegativeInt(250),
  // Not an operator setting: the cluster primary writes it into each worker's environment
  // (server/http/cluster/worker-count.ts), so it is left out of the settings table.
  LAUNCHDEX_WEB_WORKERS: nonNegativeInt(1),
  READ_MISS_COST: intAtLeast(4, 1),
  EXPORT_MAX_ROWS: intAtLeast(1_000_000, 1),
  EXPORT_DEADLINE_MS: intAtLeast(120_000, 100),
  EXPORT_ROWS_PER_READ: intAtLeast(1_000, 1),
  EXPORT_CHUNK_ROWS: intAtLeast(2_000, 1).pipe(z.number().max(20_000, 'must be at most 20000')),
  EXPORTS_PER_PROCESS: intAtLeast(2, 1),
  READY_MAX_LAG_BLOCKS: nonNegativeInt(64),
  METRICS_PORT: nonNegativeInt(0).pipe(z.number().max(65535, 'must be 0-65535')),
  STREAM_POLL_MS: intAtLeast(500, 10),
  STREAM_HEARTBEAT_MS: intAtLeast(15_000, 10),
  STREAM_MAX_CLIENTS: nonNegativeInt(1_000),
  STREAM_MAX_QUEUED: intAtLeast(1_000, 1),
  WEBHOOK_WORKER: z.enum(['on', 'off'], { error: 'must be on or off' }).optional().default('on'),
  WEBHOOK_TIMEOUT_MS: intAtLeast(10_000, 100),
  WEBHOOK_CONCURRENCY: intAtLeast(8, 1),
  WEBHOOK_POLL_MS: intAtLeast(200, 10),
  WEBHOOK_RETRY_BASE_MS: intAtLeast(1_000, 10),
  WEBHOOK_RETRY_MAX_MS: intAtLeast(3_600_000, 10),
  WEBHOOK_FAILING_AFTER_HOURS: intAtLeast(24, 1),
  WEBHOOK_ALLOW_LOOPBACK: booleanFlag,
  WEB_WORKERS: optionalText.pipe(
    z
      .string()
      .regex(/^(auto|[1-9]\d{0,3})$/, 'must be auto or a whole number from 1 to 9999')
      .optional(),
  ),
});

/** The file `npm run devnet` writes so the app can find the contracts it deployed. */
export const deploymentManifestSchema = z.object({
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  startBlock: z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]),
  contracts: z.object({ factory: address }).catchall(address),
});
export type DeploymentManifest = z.infer<typeof deploymentManifestSchema>;
