import type { DatabaseConfig } from '../config';
import { openPostgres } from '../db/connector';
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
 * own, under the connection layer (its deadlines and heartbeat, a multi-host URL's primary); the
 * end of that session is the end of leadership. A database that cannot be reached while waiting is
 * waited for too.
 */
export async function acquireLeadership(
  database: Extract<DatabaseConfig, { kind: 'postgres' }>,
  logger: IndexerLogger,
  signal?: AbortSignal,
): Promise<Leadership> {
  const lost = new AbortController();
  let leading = false;
  const { client: connection, connector } = openPostgres(database, {
    max: 1,
    idle_timeout: 0,
    // postgres.js ends a session after 30-60 min by default and opens another on the next query:
    // that one would not hold the lock.
    max_lifetime: null,
    onnotice: () => {},
    connection: { application_name: 'launchdex-indexer-lock' },
    // The lock is the session's: once it ends (a restart, a failover, a frozen server cut by the
    // heartbeat, a network break) this process no longer leads, whatever a later session says.
    onclose: () => {
      if (!leading || lost.signal.aborted) return;
      logger.error({}, 'lost the indexer leader lock connection; stepping down');
      lost.abort();
    },
  });
  const end = async () => {
    await connector.close();
    await connection.end({ timeout: 2 });
  };
  let announced = false;
  let unreachable = false;
  for (;;) {
    if (signal?.aborted) {
      await end();
      throw new Error('aborted while waiting for the indexer lock');
    }
    const locked = await connection<{ locked: boolean }[]>`
      select pg_try_advisory_lock(${LEADER_LOCK_ID}::bigint) as locked`.then(
      ([row]) => {
        unreachable = false;
        return row?.locked === true;
      },
      (error: unknown) => {
        if (!unreachable)
          logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'database unreachable while waiting for the indexer lock; retrying',
          );
        unreachable = true;
        return false;
      },
    );
    if (locked) break;
    if (!announced && !unreachable) {
      logger.info({}, 'standby: another indexer holds the leader lock; waiting');
      announced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, unreachable ? 500 : 2_000));
  }
  logger.info({}, 'acquired the indexer leader lock');
  leading = true;
  return {
    lost: lost.signal,
    release: async () => {
      if (!lost.signal.aborted)
        await connection`select pg_advisory_unlock(${LEADER_LOCK_ID}::bigint)`.catch(() => {});
      leading = false;
      await end();
    },
  };
}
