import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { availableBackends } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import { type DatabaseHandle, selectRows } from '../db/client';
import { isAppErrorCode } from '../errors';
import { createFilesystemStore, type ObjectStore } from '../objects/store';
import { createDraft } from './create-draft';
import type { DraftBudget } from './draft-storage';
import { processImage } from './image';
import { previewPurge, purgeExpiredDrafts } from './purge-drafts';

const backends = await availableBackends();
const DAY = 24 * 3_600_000;
let colour = 0;

/** A PNG no other test image equals (its colour is new), of about `side`² × 3 bytes when noisy. */
async function image(options: { noise?: boolean; side?: number } = {}) {
  const side = options.side ?? 8;
  colour++;
  if (options.noise) {
    const raw = Buffer.alloc(side * side * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = Math.floor(Math.random() * 256);
    return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
  }
  const hex = `#${colour.toString(16).padStart(6, '0')}`;
  return sharp({ create: { width: side, height: side, channels: 3, background: hex } })
    .png()
    .toBuffer();
}

/** What an upload of `bytes` stores: the re-encoded image and its share-card thumbnail. */
async function storedWeight(bytes: Buffer): Promise<number> {
  const stored = await processImage(bytes);
  return stored.bytes.length + stored.thumbnail.length;
}

describe.each(backends)('draft retention and the storage budget (%s)', (backend) => {
  let handle: DatabaseHandle;
  const objectsDir = mkdtempSync(path.join(tmpdir(), 'launchdex-purge-'));
  const store = createFilesystemStore(objectsDir);

  const upload = async (bytes: Buffer, budget?: DraftBudget, objects: ObjectStore = store) => {
    const draft = await createDraft(
      { db: handle.db, objects, fetchImage: async () => Buffer.alloc(0), budget },
      {
        fields: { name: 'Keep Me', symbol: 'KEEP', initial_supply: (10n ** 27n).toString() },
        file: { bytes: new Uint8Array(bytes), filename: 'a.png' },
      },
    );
    return { id: draft.draft_id, key: draft.image_url.slice('/objects/'.length) };
  };
  const age = (id: string, hours: number) =>
    handle.db.execute(
      sql`update metadata_drafts set created_at = now() - make_interval(hours => ${hours}) where id = ${id}`,
    );
  // The columns finalize writes: these tests are about the purge, finalize has its own.
  const bind = (id: string, token: string) =>
    handle.db.execute(
      sql`update metadata_drafts set bound_token_address = ${token}, bound_transaction_hash = ${`0x${'ab'.repeat(32)}`}, bound_at = now() where id = ${id}`,
    );
  const draftExists = async (id: string) =>
    (await selectRows(handle.db, sql`select 1 from metadata_drafts where id = ${id}`)).length === 1;
  const objectRow = async (key: string) =>
    (await selectRows(handle.db, sql`select 1 from stored_objects where key = ${key}`)).length === 1;
  const counts = async () =>
    (
      await selectRows<{ drafts: string | number; objects: string | number }>(
        handle.db,
        sql`select (select count(*) from metadata_drafts) as drafts, (select count(*) from stored_objects) as objects`,
      )
    ).map((row) => ({ drafts: Number(row.drafts), objects: Number(row.objects) }))[0];
  const onDisk = (key: string) => existsSync(path.join(objectsDir, key));
  /** Where an upload stands: its draft's row, its object's row, its object's file. */
  const stateOf = async (upload: { id: string; key: string }) => ({
    draft: await draftExists(upload.id),
    object: await objectRow(upload.key),
    file: onDisk(upload.key),
  });
  const kept = { draft: true, object: true, file: true };
  const purge = () => purgeExpiredDrafts({ db: handle.db, objects: store, ttlMs: DAY });

  testDatabaseForTests(backend, (opened) => {
    handle = opened.handle;
  });

  afterAll(() => {
    rmSync(objectsDir, { recursive: true, force: true });
  });

  it('deletes a draft unbound past the lifetime with its object, and leaves a younger one', async () => {
    const old = await upload(await image());
    const young = await upload(await image());
    await age(old.id, 25);
    await age(young.id, 23);
    expect(onDisk(old.key)).toBe(true);

    const result = await purge();

    expect(result).toMatchObject({ status: 'purged', drafts: 1, objects: 1, keptShared: 0 });
    expect(await stateOf(old)).toEqual({ draft: false, object: false, file: false });
    expect(await stateOf(young)).toEqual(kept);
  });

  it('keeps an object that another draft names, unbound and young or bound', async () => {
    const bytes = await image();
    const expired = await upload(bytes);
    const twin = await upload(bytes);
    expect(twin.key).toBe(expired.key);
    await age(expired.id, 30);

    expect(await purge()).toMatchObject({ drafts: 1, objects: 0, keptShared: 1 });
    expect(await stateOf(expired)).toEqual({ ...kept, draft: false });
    expect(await stateOf(twin)).toEqual(kept);

    // The object now backs a bound token's draft (old, but bound) and an expired unbound one.
    await age(twin.id, 30);
    await bind(twin.id, `0x${'11'.repeat(20)}`);
    const another = await upload(bytes);
    await age(another.id, 30);
    expect(await purge()).toMatchObject({ drafts: 1, objects: 0, keptShared: 1 });
    expect(await draftExists(another.id)).toBe(false);
    expect(onDisk(twin.key)).toBe(true);
  });

  it('never purges a bound draft, however old', async () => {
    const bound = await upload(await image());
    await bind(bound.id, `0x${'22'.repeat(20)}`);
    await age(bound.id, 24 * 365);
    const result = await purge();
    expect(result).toMatchObject({ status: 'purged', drafts: 0, objects: 0 });
    expect(await stateOf(bound)).toEqual(kept);
  });

  it('previews exactly what a purge then deletes, deleting nothing itself', async () => {
    const shared = await image();
    const a = await upload(shared);
    const b = await upload(shared);
    const alone = await upload(await image());
    const keeper = await upload(shared);
    for (const draft of [a, b, alone]) await age(draft.id, 48);
    const sizes = await selectRows<{ size: number }>(
      handle.db,
      sql`select size from stored_objects where key = ${alone.key}`,
    );

    const preview = await previewPurge({ db: handle.db, ttlMs: DAY });
    expect(preview).toEqual({ drafts: 3, objects: 1, bytes: Number(sizes[0]?.size), keptShared: 1 });
    for (const draft of [a, b, alone, keeper]) expect(await draftExists(draft.id)).toBe(true);
    expect(onDisk(alone.key)).toBe(true);

    const result = await purge();
    expect(result).toEqual({ status: 'purged', ...preview });
    expect(onDisk(alone.key)).toBe(false);
    expect(onDisk(keeper.key)).toBe(true);
  });

  it('refuses an upload past the client’s budget with 429 storage_budget_exceeded, freed by the purge and by binding', async () => {
    const first = await image({ noise: true, side: 100 });
    const second = await image({ noise: true, side: 100 });
    const third = await image({ noise: true, side: 100 });
    // Room for two of these images (each stored with its thumbnail), not three.
    const budget: DraftBudget = {
      client: '203.0.113.7',
      bytes: Math.floor((await storedWeight(first)) * 2.5),
      ttlMs: DAY,
      purgeIntervalMs: 600_000,
    };
    const other: DraftBudget = { ...budget, client: '2001:db8:1:2::/64' };
    const a = await upload(first, budget);
    await upload(second, budget);

    const before = await counts();
    const refusal = await upload(third, budget).catch((error: unknown) => error);
    expect(isAppErrorCode(refusal, 'storage_budget_exceeded')).toBe(true);
    const error = refusal as import('../errors').AppError;
    expect(error.status).toBe(429);
    expect(error.details?.map((detail) => detail.field)).toEqual([
      'held_bytes',
      'draft_bytes',
      'budget_bytes',
      'frees_at',
    ]);
    // The oldest draft expires in 24 h and the next purge runs within 10 min of that.
    const retryAfter = Number(error.headers?.['retry-after']);
    expect(retryAfter).toBeGreaterThan(DAY / 1000 - 60);
    expect(retryAfter).toBeLessThanOrEqual((DAY + 600_000) / 1000);
    // Nothing of the refused image was stored.
    expect(await counts()).toEqual(before);
    // Another client has its own budget.
    await upload(third, other);

    // The purge frees the expired draft's bytes.
    await age(a.id, 25);
    await purge();
    const c = await upload(await image({ noise: true, side: 100 }), budget);
    await expect(upload(await image({ noise: true, side: 100 }), budget)).rejects.toSatisfy((e) =>
      isAppErrorCode(e, 'storage_budget_exceeded'),
    );
    // Binding frees a draft's bytes at once.
    await bind(c.id, `0x${'33'.repeat(20)}`);
    await upload(await image({ noise: true, side: 100 }), budget);
  });

  it('counts uploads that race each other once each: concurrent uploads never pass one check together', async () => {
    const images = await Promise.all(Array.from({ length: 6 }, () => image({ noise: true, side: 80 })));
    const largest = Math.max(...(await Promise.all(images.map(storedWeight))));
    const budget: DraftBudget = {
      client: '198.51.100.9',
      bytes: largest * 3,
      ttlMs: DAY,
      purgeIntervalMs: 0,
    };
    const outcomes = await Promise.allSettled(images.map((bytes) => upload(bytes, budget)));
    const accepted = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
    const held = await selectRows<{ bytes: string | number }>(
      handle.db,
      sql`select coalesce(sum(stored_bytes), 0) as bytes from metadata_drafts where client = ${budget.client}`,
    );
    expect(Number(held[0]?.bytes)).toBeLessThanOrEqual(budget.bytes);
    expect(accepted).toBeGreaterThanOrEqual(2);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected')
        expect(isAppErrorCode(outcome.reason, 'storage_budget_exceeded')).toBe(true);
  });

  it('an upload of bytes the purge is deleting waits for it, then stores them again', async () => {
    const bytes = await image();
    const expired = await upload(bytes);
    await age(expired.id, 25);
    // The purge pauses while it deletes the object's bytes, holding the object's row lock.
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let entered!: () => void;
    const deleting = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const gated: ObjectStore = {
      ...store,
      async delete(key) {
        entered();
        await paused;
        await store.delete(key);
      },
    };
    const purging = purgeExpiredDrafts({ db: handle.db, objects: gated, ttlMs: DAY });
    await deleting;
    const uploading = upload(bytes);
    // Give the upload time to reach the row lock (PostgreSQL) or the session (PGlite).
    await new Promise((resolve) => setTimeout(resolve, 300));
    resume();
    const [purged, again] = await Promise.all([purging, uploading]);

    expect(purged).toMatchObject({ drafts: 1, objects: 1 });
    expect(again.key).toBe(expired.key);
    expect(await stateOf(again)).toEqual(kept);
  });

  it('deletes an object left without a draft once it is older than a draft’s lifetime', async () => {
    const bytes = await image();
    // An upload whose store failed after the draft was written undoes itself.
    const failing: ObjectStore = {
      ...store,
      async put() {
        throw new Error('disk full');
      },
    };
    const before = await counts();
    await expect(upload(bytes, undefined, failing)).rejects.toThrow('disk full');
    expect(await counts()).toEqual(before);
    // An orphan row (a delete of its bytes failed once) is swept when it is old enough.
    const orphan = await upload(await image());
    await handle.db.execute(sql`delete from metadata_drafts where id = ${orphan.id}`);
    await purge();
    expect(onDisk(orphan.key)).toBe(true);
    await handle.db.execute(
      sql`update stored_objects set created_at = now() - interval '25 hours' where key = ${orphan.key}`,
    );
    expect(await purge()).toMatchObject({ objects: 1 });
    expect(onDisk(orphan.key)).toBe(false);
    expect(await objectRow(orphan.key)).toBe(false);
  });
});
