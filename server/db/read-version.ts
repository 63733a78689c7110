import { sql } from 'drizzle-orm';
import type { Database } from './client';
import { compiledRead } from './compiled-read';
import { ConnectionCutError } from './connector';
import { withinDeadline } from './deadlines';

/** Anything that runs SQL: the database or a transaction of it. */
type Executor = Pick<Database, 'execute'>;

/**
 * Marks the read model as changed. Call it inside the transaction that changes what a read
 * answer would say (projections, rollback, finalize, moderation): readers that see the new
 * version also see the change, and none sees the version before the change commits.
 */
export async function bumpReadVersion(executor: Executor): Promise<void> {
  await executor.execute(sql`insert into read_model_version (id, version) values (1, 1)
    on conflict (id) do update set version = read_model_version.version + 1`);
}

export interface ReadVersion {
  /**
   * The version as of a read that started after this call: every write committed before the
   * call is counted. Concurrent callers share one database read.
   */
  current(): Promise<bigint>;
}

// Compiled once: a busy server reads it hundreds of times a second.
const versionRow = compiledRead<{ version: string | number | bigint }, never>(
  () => sql`select coalesce((select version from read_model_version where id = 1), 0) as version`,
);

/**
 * The read-model version of `db`, read once per wave of requests. A request may only join a
 * read that starts after it arrived (joining one already under way could miss a commit that
 * happened in between), so callers arriving during a read wait for the next one; under load
 * one round trip serves every request that arrived during the previous one.
 */
export function createReadVersion(db: Database, deadlineMs = 0): ReadVersion {
  let inFlight: Promise<bigint> | undefined;
  let next: Promise<bigint> | undefined;
  const read = async () => {
    // Every read of this database waits on this one statement (its callers share it): one that
    // does not answer must not hold them all, so a replica's read runs again on the primary.
    // Measured under repeated standby freezes (`npm run chaos -- --faults db`): without the
    // deadline one unanswered version read held that replica's readers for 10 s and more.
    const [row] = await (deadlineMs > 0
      ? withinDeadline(
          versionRow(db, {}),
          deadlineMs,
          () => new ConnectionCutError(`the read-model version did not answer within ${deadlineMs} ms`),
        )
      : versionRow(db, {}));
    return BigInt(row?.version ?? 0);
  };
  const start = (): Promise<bigint> => {
    const started = read().finally(() => {
      if (inFlight === started) inFlight = undefined;
    });
    inFlight = started;
    return started;
  };
  return {
    current() {
      if (!inFlight) return start();
      next ??= inFlight
        .catch(() => undefined)
        .then(() => {
          next = undefined;
          return start();
        });
      return next;
    },
  };
}
