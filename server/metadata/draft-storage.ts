import { sql } from 'drizzle-orm';
import { type Database, selectRows } from '../db/client';
import { AppError } from '../errors';
import type { ObjectStore } from '../objects/store';

/**
 * Objects are content-addressed, so one image may back many drafts, and an upload of the same
 * bytes may arrive while the purge is deleting them. One protocol decides, in the database, when
 * an object's bytes may go; every writer follows it:
 *
 * - an upload upserts the object's `stored_objects` row (taking its row lock) in the transaction
 *   that inserts its draft, and writes the bytes to the store only after that commits;
 * - a release (the purge, or an upload undoing itself) locks the rows of the keys it means to
 *   delete, then, in a later statement (a fresh snapshot), keeps every key a draft still names,
 *   and deletes the others' bytes and rows before its transaction commits.
 *
 * Whichever takes a key's row lock first, the other sees its outcome: an upload that waited for a
 * release inserts the row anew and writes the bytes after the delete; a release that waited for an
 * upload sees the new draft and keeps the key.
 */

/** The objects a release deleted and the ones it kept because a draft still names them. */
export interface ReleasedObjects {
  deleted: { key: string; size: number }[];
  kept: string[];
}

/**
 * Within `tx`, after the drafts naming `keys` were deleted in it: deletes the objects no draft
 * names any more (bytes, then row) and keeps the rest. Only keys whose `stored_objects` row this
 * transaction locked are deleted, so an object never indexed there is left alone. A failed delete
 * of the bytes keeps that key's row (the object stays whole and is retried as an orphan).
 */
export async function releaseObjects(
  tx: Database,
  store: ObjectStore,
  keys: readonly string[],
  onDeleteFailed: (key: string, error: unknown) => void = () => {},
): Promise<ReleasedObjects> {
  const unique = [...new Set(keys)].sort();
  if (unique.length === 0) return { deleted: [], kept: [] };
  const list = sql.join(
    unique.map((key) => sql`${key}`),
    sql`, `,
  );
  // Sorted, so two releases lock shared keys in one order and never deadlock each other.
  const locked = await selectRows<{ key: string; size: number; thumbnail_key: string | null }>(
    tx,
    sql`select key, size, thumbnail_key from stored_objects where key in (${list}) order by key for update`,
  );
  if (locked.length === 0) return { deleted: [], kept: unique };
  const lockedList = sql.join(
    locked.map((row) => sql`${row.key}`),
    sql`, `,
  );
  // A statement of its own: its snapshot includes every upload that committed while we waited.
  const named = new Set(
    (
      await selectRows<{ image_key: string }>(
        tx,
        sql`select distinct image_key from metadata_drafts where image_key in (${lockedList})`,
      )
    ).map((row) => row.image_key),
  );
  const deleted: ReleasedObjects['deleted'] = [];
  const kept = unique.filter((key) => !locked.some((row) => row.key === key));
  for (const row of locked) {
    if (named.has(row.key)) {
      kept.push(row.key);
      continue;
    }
    try {
      await store.delete(row.key);
      // The share-card thumbnail has no row of its own: it goes with its image, unless another
      // image made the same thumbnail bytes (content-addressed, so they share one object).
      if (row.thumbnail_key !== null) {
        const [shared] = await selectRows<{ one: number }>(
          tx,
          sql`select 1 as one from stored_objects where thumbnail_key = ${row.thumbnail_key} and key <> ${row.key} limit 1`,
        );
        if (!shared) await store.delete(row.thumbnail_key);
      }
      deleted.push({ key: row.key, size: Number(row.size) });
    } catch (error) {
      onDeleteFailed(row.key, error);
      kept.push(row.key);
    }
  }
  if (deleted.length > 0)
    await tx.execute(
      sql`delete from stored_objects where key in (${sql.join(
        deleted.map((row) => sql`${row.key}`),
        sql`, `,
      )})`,
    );
  return { deleted, kept };
}

/** What a client's unbound drafts hold now, and since when. */
export interface HeldDrafts {
  bytes: number;
  /** Creation time of its oldest unbound draft (the first to expire), if it has any. */
  oldest: Date | undefined;
}

/**
 * The bytes of `client`'s unbound drafts (each its image's and its text's bytes, even when it
 * shares an identical image): expired ones count until the purge deletes them.
 */
export async function heldByClient(db: Database, client: string): Promise<HeldDrafts> {
  const [row] = await selectRows<{ bytes: string | number | null; oldest: string | Date | null }>(
    db,
    sql`select coalesce(sum(stored_bytes), 0) as bytes, min(created_at) as oldest
        from metadata_drafts where client = ${client} and bound_token_address is null`,
  );
  return {
    bytes: Number(row?.bytes ?? 0),
    oldest: row?.oldest ? new Date(row.oldest) : undefined,
  };
}

/**
 * Serializes one client's uploads for the rest of `tx`: the budget is checked and the draft
 * inserted under this lock, so concurrent uploads (on any instance) cannot all pass one check.
 */
export async function lockClientBudget(tx: Database, client: string): Promise<void> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`launchdex-draft-budget:${client}`}, 0))`,
  );
}

/** A client's storage budget as the upload path applies it. */
export interface DraftBudget {
  /** The client's key (its rate-limit key). */
  client: string;
  /** Most bytes its unbound drafts may hold at once. */
  bytes: number;
  /** How long an unbound draft lives, and how often the purge runs: when held bytes free up. */
  ttlMs: number;
  purgeIntervalMs: number;
}

/**
 * Refuses an upload that would take `client` past its budget: 429 `storage_budget_exceeded`,
 * with Retry-After at the purge run after its oldest unbound draft expires (binding one of its
 * drafts to a launch frees its bytes at once).
 */
export function checkBudget(budget: DraftBudget, held: HeldDrafts, adding: number, now: Date): void {
  if (held.bytes + adding <= budget.bytes) return;
  const freesAt = new Date((held.oldest ?? now).getTime() + budget.ttlMs + (budget.purgeIntervalMs || 0));
  const seconds = Math.max(1, Math.ceil((freesAt.getTime() - now.getTime()) / 1000));
  throw new AppError(
    'storage_budget_exceeded',
    `this client's unbound drafts hold ${held.bytes} bytes and this draft needs ${adding} more; at most ${budget.bytes} bytes may wait unbound at once. Finalize a launched draft, or retry after ${freesAt.toISOString()} when the oldest expires`,
    [
      { field: 'held_bytes', message: String(held.bytes) },
      { field: 'draft_bytes', message: String(adding) },
      { field: 'budget_bytes', message: String(budget.bytes) },
      { field: 'frees_at', message: freesAt.toISOString() },
    ],
    { 'retry-after': String(seconds) },
  );
}
