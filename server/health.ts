import type { Logger } from 'pino';
import type { Config } from './config';
import type { DatabaseHandle } from './db';
import { readIndexedThroughBlock } from './db/checkpoint';
import { withinDeadline } from './db/deadlines';
import { appliedMigrationCount, shippedMigrationCount } from './db/migrate';
import type { ReplicaHealth } from './db/replicas';
import type { ChainHead } from './observability/chain-head';

/**
 * Liveness: /api/health answers 200 while the process serves, whatever its dependencies do (a load
 * balancer that pulled every instance during a database restart would turn seconds of staleness
 * into an outage); `status` and `database` say how the primary is.
 */
export interface Health {
  status: 'ok' | 'degraded';
  database: {
    driver: 'postgres' | 'pglite';
    reachable: boolean;
    migrations: { applied: number; shipped: number; current: boolean } | null;
    error?: string;
  };
  indexer: { indexed_through_block: number | null };
}

/** What the checks look at: the process's database, its settings, its logger, its chain head. */
export interface HealthSources {
  config: Pick<Config, 'chain' | 'readyMaxLagBlocks'>;
  database: DatabaseHandle;
  logger: Logger;
  chainHead: ChainHead;
}

/**
 * A health check waits this long for the primary at most: a load balancer's probe gets its answer
 * in time even while the pool's own deadlines (connect, heartbeat) are still running out.
 */
const HEALTH_DATABASE_DEADLINE_MS = 1_000;

/** The primary reachable (within {@link HEALTH_DATABASE_DEADLINE_MS}) and fully migrated. */
export async function checkHealth({ database: handle, logger }: HealthSources): Promise<Health> {
  const shipped = shippedMigrationCount();
  try {
    const [indexedThroughBlock, applied] = await withinDeadline(
      Promise.all([readIndexedThroughBlock(handle.db), appliedMigrationCount(handle)]),
      HEALTH_DATABASE_DEADLINE_MS,
      () => new Error(`no answer within ${HEALTH_DATABASE_DEADLINE_MS} ms`),
    );
    const current = applied === shipped;
    return {
      status: current ? 'ok' : 'degraded',
      database: { driver: handle.driver, reachable: true, migrations: { applied, shipped, current } },
      indexer: {
        indexed_through_block: indexedThroughBlock,
      },
    };
  } catch (error) {
    logger.warn({ err: error }, 'health check failed');
    return {
      status: 'degraded',
      database: {
        driver: handle.driver,
        reachable: false,
        migrations: null,
        error: error instanceof Error ? error.message.split('\n')[0] : 'unknown error',
      },
      indexer: { indexed_through_block: null },
    };
  }
}

/**
 * Readiness for a load balancer: `ready`, `read_only` and `stale` answer 200 (keep the instance
 * in rotation), `unready` 503. `read_only`: the primary is unreachable and a replica serves reads;
 * writes, finalize and reads newer than every replica answer 503 with Retry-After meanwhile.
 * `stale`: the chain's RPC does not answer, so how far behind the index is cannot be told; reads
 * answer what is indexed (with its `indexed_through_block`).
 */
export interface Readiness {
  status: 'ready' | 'read_only' | 'stale' | 'unready';
  /** Why not ready, in plain words; empty when ready. */
  reasons: string[];
  database: Health['database'];
  indexer: {
    /** The primary's, or while it is unreachable the freshest serving replica's. */
    indexed_through_block: number | null;
    chain_head: number | null;
    lag_blocks: number | null;
    max_lag_blocks: number;
  };
}

/**
 * Readiness: the database is reachable and migrated (or, read-only, a replica serves), and, when a
 * chain is configured, the index is at most READY_MAX_LAG_BLOCKS behind the head the RPC reports.
 * An RPC that does not answer makes the lag unknown: `stale`, still in rotation. The RPC is
 * shared by every instance, so counting it against readiness would take them all out at once
 * and turn a provider's outage into the explorer's, while the index could still be read.
 */
export async function checkReadiness(
  sources: HealthSources,
  replicas: readonly ReplicaHealth[] = [],
): Promise<Readiness> {
  const { config } = sources;
  const [health, head] = await Promise.all([checkHealth(sources), sources.chainHead()]);
  return readinessOf({
    health,
    head,
    chainConfigured: config.chain !== undefined,
    maxLag: config.readyMaxLagBlocks,
    replicas,
  });
}

/** The readiness rule on its inputs (see checkReadiness). */
export function readinessOf(input: {
  health: Health;
  head: number | null;
  chainConfigured: boolean;
  maxLag: number;
  replicas?: readonly ReplicaHealth[];
}): Readiness {
  const { health, head, maxLag } = input;
  const serving = (input.replicas ?? []).filter((replica) => replica.healthy && replica.position);
  const readOnly = !health.database.reachable && serving.length > 0;
  const indexed = readOnly
    ? Math.max(...serving.map((replica) => replica.position?.block ?? 0))
    : health.indexer.indexed_through_block;
  const reasons: string[] = [];
  if (!health.database.reachable && !readOnly) reasons.push('database unreachable');
  else if (health.database.reachable && !health.database.migrations?.current)
    reasons.push('database migrations not current');
  let lag: number | null = null;
  const headUnknown = input.chainConfigured && head === null;
  if (input.chainConfigured && head !== null && indexed !== null) {
    lag = Math.max(0, head - indexed);
    if (lag > maxLag) reasons.push(`index ${lag} blocks behind the chain head (limit ${maxLag})`);
  }
  const status = reasons.length > 0 ? 'unready' : readOnly ? 'read_only' : headUnknown ? 'stale' : 'ready';
  if (headUnknown) reasons.push('chain head unknown (RPC did not answer): serving what is indexed');
  if (readOnly)
    reasons.unshift(
      `primary database unreachable: ${serving.length} replica(s) serving reads, writes refused`,
    );
  return {
    status,
    reasons,
    database: health.database,
    indexer: { indexed_through_block: indexed, chain_head: head, lag_blocks: lag, max_lag_blocks: maxLag },
  };
}
