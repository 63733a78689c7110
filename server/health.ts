import type { Logger } from 'pino';
import type { Config } from './config';
import type { DatabaseHandle } from './db';
import { readIndexedThroughBlock } from './db/checkpoint';
import { appliedMigrationCount, shippedMigrationCount } from './db/migrate';
import { readChainHead } from './observability/chain-head';

export interface Health {
  status: 'ok' | 'unavailable';
  database: {
    driver: 'postgres' | 'pglite';
    reachable: boolean;
    migrations: { applied: number; shipped: number; current: boolean } | null;
    error?: string;
  };
  indexer: { indexed_through_block: number | null };
}

/** What the checks look at: the process's database, its settings, its logger. */
export interface HealthSources {
  config: Pick<Config, 'chain' | 'readyMaxLagBlocks'>;
  database: DatabaseHandle;
  logger: Logger;
}

/** Liveness of the parts this process depends on: database reachable and fully migrated. */
export async function checkHealth({ database: handle, logger }: HealthSources): Promise<Health> {
  const shipped = shippedMigrationCount();
  try {
    const indexedThroughBlock = await readIndexedThroughBlock(handle.db);
    const applied = await appliedMigrationCount(handle);
    const current = applied === shipped;
    return {
      status: current ? 'ok' : 'unavailable',
      database: { driver: handle.driver, reachable: true, migrations: { applied, shipped, current } },
      indexer: {
        indexed_through_block: indexedThroughBlock,
      },
    };
  } catch (error) {
    logger.warn({ err: error }, 'health check failed');
    return {
      status: 'unavailable',
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

export interface Readiness {
  status: 'ready' | 'not_ready';
  /** Why not, in plain words; empty when ready. */
  reasons: string[];
  database: Health['database'];
  indexer: {
    indexed_through_block: number | null;
    chain_head: number | null;
    lag_blocks: number | null;
    max_lag_blocks: number;
  };
}

/**
 * Readiness: the database is reachable and migrated, and, when a chain is configured, the index
 * is at most READY_MAX_LAG_BLOCKS behind the head the RPC reports. An RPC that does not answer
 * makes the lag unknown, which is not ready: the data could be arbitrarily stale.
 */
export async function checkReadiness(sources: HealthSources): Promise<Readiness> {
  const { config } = sources;
  const [health, head] = await Promise.all([checkHealth(sources), readChainHead(config.chain)]);
  return readinessOf({
    health,
    head,
    chainConfigured: config.chain !== undefined,
    maxLag: config.readyMaxLagBlocks,
  });
}

/** The readiness rule on its inputs (see checkReadiness). */
export function readinessOf(input: {
  health: Health;
  head: number | null;
  chainConfigured: boolean;
  maxLag: number;
}): Readiness {
  const { health, head, maxLag } = input;
  const indexed = health.indexer.indexed_through_block;
  const reasons: string[] = [];
  if (!health.database.reachable) reasons.push('database unreachable');
  else if (!health.database.migrations?.current) reasons.push('database migrations not current');
  let lag: number | null = null;
  if (input.chainConfigured) {
    if (head === null) reasons.push('chain head unknown (RPC did not answer)');
    else if (indexed !== null) {
      lag = Math.max(0, head - indexed);
      if (lag > maxLag) reasons.push(`index ${lag} blocks behind the chain head (limit ${maxLag})`);
    }
  }
  return {
    status: reasons.length === 0 ? 'ready' : 'not_ready',
    reasons,
    database: health.database,
    indexer: { indexed_through_block: indexed, chain_head: head, lag_blocks: lag, max_lag_blocks: maxLag },
  };
}
