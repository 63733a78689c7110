import postgres from 'postgres';
import type { IndexerLogger } from './indexer';

/** Advisory lock key of the indexer leader (any fixed 64-bit value, distinct from migrations). */
const LEADER_LOCK_ID = '7307157361213370001';

export interface Leadership {
  /** Aborts when the lock connection is lost: the holder must stop writing at once. */
  lost: AbortSignal;
  release(): Promise<void>;
}

/**
 * Waits until this process holds the indexer's PostgreSQL advisory lock. Only one indexer
 * writes; others wait here as standbys and take over when the leader's session ends (a crash
 * ends the session, so failover needs no timeout logic). The lock lives on a connection of its
 * own, checked every few seconds.
 */
export async function acquireLeadership(
  databaseUrl: string,
  logger: IndexerLogger,
  signal?: AbortSignal,
): Promise<Leadership> {
  const connection = postgres(databaseUrl, {
    max: 1,
    idle_timeout: 0,
    onnotice: () => {},
    connection: { application_name: 'launchdex-indexer-lock' },
  });
  let announced = false;
  for (;;) {
    if (signal?.aborted) {
      await connection.end({ timeout: 1 });
      throw new Error('aborted while waiting for the indexer lock');
    }
    const [row] = await connection`select pg_try_advisory_lock(${LEADER_LOCK_ID}::bigint) as locked`;
    if (row?.locked) break;
    if (!announced) {
      logger.info({}, 'standby: another indexer holds the leader lock; waiting');
      announced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  logger.info({}, 'acquired the indexer leader lock');
  const lost = new AbortController();
  const watchdog = setInterval(() => {
    connection`select 1`.catch(() => {
      logger.error({}, 'lost the indexer leader lock connection; stopping');
      lost.abort();
    });
  }, 5_000);
  return {
    lost: lost.signal,
    release: async () => {
      clearInterval(watchdog);
      await connection`select pg_advisory_unlock(${LEADER_LOCK_ID}::bigint)`.catch(() => {});
      await connection.end({ timeout: 2 });
    },
  };
}
