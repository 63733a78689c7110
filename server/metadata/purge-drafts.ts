import { sql } from 'drizzle-orm';
import { type Database, selectRows } from '../db/client';
import type { ObjectStore } from '../objects/store';
import { releaseObjects } from './draft-storage';

// Any fixed 64-bit number; distinct from the migration and indexer leader locks.
const PURGE_LOCK_ID = '7307157361213370002';
/** Drafts deleted per transaction: row locks and a batch's object deletes stay short. */
const DEFAULT_BATCH = 200;

export interface PurgeDraftsParameters {
  db: Database;
  objects: ObjectStore;
  /** Unbound drafts created longer ago than this are deleted. */
  ttlMs: number;
  clock?: () => Date;
  batchSize?: number;
  /** Called after each committed batch, with the running totals. */
  onProgress?: (totals: PurgeTotals) => void;
  /** An object's bytes could not be deleted; its row stays and a later run retries it. */
  onDeleteFailed?: (key: string, error: unknown) => void;
}

export interface PurgeTotals {
  drafts: number;
  /** Objects deleted (bytes and row): no draft names them any more. */
  objects: number;
  bytes: number;
  /** Objects of deleted drafts kept because another draft (bound or not) names them. */
  keptShared: number;
}

/** `busy`: another process holds the purge lock and is purging; this run did nothing. */
export type PurgeDraftsReturnType = ({ status: 'purged' } & PurgeTotals) | { status: 'busy' };

const zero = (): PurgeTotals => ({ drafts: 0, objects: 0, bytes: 0, keptShared: 0 });

/**
 * Deletes drafts that were not bound within `ttlMs`, with their objects unless another draft
 * names them, in batches of one transaction each. Safe beside finalize: a batch locks the rows it
 * deletes with `for update skip locked` and deletes only rows still unbound, so a draft being
 * bound is skipped (and stays bound), and a finalize that waited for the purge finds no draft
 * (404) rather than binding it. Objects are released by the protocol of draft-storage.ts, which
 * makes it safe beside uploads of the same bytes. One process purges at a time (an advisory
 * lock); others answer `busy`.
 * @example await purgeExpiredDrafts({ db, objects, ttlMs: 24 * 3_600_000 })
 */
export async function purgeExpiredDrafts(parameters: PurgeDraftsParameters): Promise<PurgeDraftsReturnType> {
  const { db, objects, ttlMs, batchSize = DEFAULT_BATCH } = parameters;
  const totals = zero();
  for (;;) {
    // Fixed per batch, so a long run does not chase drafts that expire while it runs.
    const cutoff = new Date((parameters.clock?.() ?? new Date()).getTime() - ttlMs);
    const batch = await db.transaction(async (transaction) => {
      const tx = transaction as unknown as Database;
      const [lock] = await selectRows<{ locked: boolean }>(
        tx,
        sql`select pg_try_advisory_xact_lock(${PURGE_LOCK_ID}::bigint) as locked`,
      );
      if (!lock?.locked) return 'busy' as const;
      const deleted = await selectRows<{ image_key: string }>(
        tx,
        sql`delete from metadata_drafts where id in (
              select id from metadata_drafts
              where bound_token_address is null and created_at < ${cutoff.toISOString()}::timestamptz
              order by created_at
              limit ${batchSize}
              for update skip locked)
            and bound_token_address is null
            returning image_key`,
      );
      const released = await releaseObjects(
        tx,
        objects,
        deleted.map((row) => row.image_key),
        parameters.onDeleteFailed,
      );
      return { drafts: deleted.length, released };
    });
    if (batch === 'busy') return totals.drafts === 0 ? { status: 'busy' } : { status: 'purged', ...totals };
    totals.drafts += batch.drafts;
    totals.objects += batch.released.deleted.length;
    totals.bytes += batch.released.deleted.reduce((sum, object) => sum + object.size, 0);
    totals.keptShared += batch.released.kept.length;
    if (batch.drafts > 0) parameters.onProgress?.({ ...totals });
    if (batch.drafts < batchSize) break;
  }
  const orphans = await purgeOrphanObjects(parameters);
  totals.objects += orphans.objects;
  totals.bytes += orphans.bytes;
  return { status: 'purged', ...totals };
}

/**
 * Objects that no draft names and that are older than the lifetime of a draft: left by a delete
 * of their bytes that failed, or by an upload that failed after its row was written. Released by
 * the same protocol, so an upload naming one meanwhile keeps it.
 */
async function purgeOrphanObjects(
  parameters: PurgeDraftsParameters,
): Promise<{ objects: number; bytes: number }> {
  const { db, objects, ttlMs } = parameters;
  const cutoff = new Date((parameters.clock?.() ?? new Date()).getTime() - ttlMs);
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Database;
    const orphans = await selectRows<{ key: string }>(
      tx,
      sql`select key from stored_objects o
          where created_at < ${cutoff.toISOString()}::timestamptz
            and not exists (select 1 from metadata_drafts d where d.image_key = o.key)
          limit 1000`,
    );
    const released = await releaseObjects(
      tx,
      objects,
      orphans.map((row) => row.key),
      parameters.onDeleteFailed,
    );
    return {
      objects: released.deleted.length,
      bytes: released.deleted.reduce((sum, object) => sum + object.size, 0),
    };
  });
}

/** What a purge would delete now, without deleting anything (`npm run purge-drafts -- --dry-run`). */
export async function previewPurge(parameters: {
  db: Database;
  ttlMs: number;
  clock?: () => Date;
}): Promise<PurgeTotals> {
  const cutoff = new Date((parameters.clock?.() ?? new Date()).getTime() - parameters.ttlMs).toISOString();
  const [row] = await selectRows<{
    drafts: string | number;
    objects: string | number;
    bytes: string | number | null;
    kept: string | number;
  }>(
    parameters.db,
    sql`with expired as (
          select id, image_key from metadata_drafts
          where bound_token_address is null and created_at < ${cutoff}::timestamptz),
        keys as (select distinct image_key as key from expired),
        freed as (
          select o.key, o.size from stored_objects o join keys k on k.key = o.key
          where not exists (
            select 1 from metadata_drafts d
            where d.image_key = o.key and d.id not in (select id from expired)))
        select (select count(*) from expired) as drafts,
               (select count(*) from freed) as objects,
               (select coalesce(sum(size), 0) from freed) as bytes,
               (select count(*) from keys) - (select count(*) from freed) as kept`,
  );
  return {
    drafts: Number(row?.drafts ?? 0),
    objects: Number(row?.objects ?? 0),
    bytes: Number(row?.bytes ?? 0),
    keptShared: Number(row?.kept ?? 0),
  };
}

/**
 * Runs the purge every `intervalMs` in this process until `signal` aborts; a failed run is
 * logged and the next one tries again. The timer does not keep the process alive.
 */
export function schedulePurge(
  parameters: PurgeDraftsParameters & {
    intervalMs: number;
    signal?: AbortSignal;
    log: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  },
): void {
  const { intervalMs, signal, log } = parameters;
  const run = async () => {
    if (signal?.aborted) return;
    try {
      const result = await purgeExpiredDrafts(parameters);
      if (result.status === 'purged' && (result.drafts > 0 || result.objects > 0))
        log.info(result, 'purged expired drafts');
    } catch (error) {
      log.warn({ err: error instanceof Error ? error.message : String(error) }, 'draft purge failed');
    }
    if (!signal?.aborted) setTimeout(run, intervalMs).unref();
  };
  setTimeout(run, intervalMs).unref();
}
