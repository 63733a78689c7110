import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { DraftResponse } from '../../shared/metadata/api';
import { draftFieldsSchema } from '../../shared/metadata/draft-fields';
import type { Database } from '../db/client';
import { metadataDrafts, storedObjects } from '../db/schema';
import { AppError } from '../errors';
import { objectKeyFor } from '../objects/keys';
import type { ObjectStore } from '../objects/store';
import {
  checkBudget,
  type DraftBudget,
  heldByClient,
  lockClientBudget,
  releaseObjects,
} from './draft-storage';
import type { ImageFetcher } from './fetch-image';
import { processImage } from './image';
import { metadataHashOf } from './metadata-hash';
import type { DraftUpload } from './multipart';

export interface DraftServices {
  db: Database;
  objects: ObjectStore;
  fetchImage: ImageFetcher;
  /** The uploader's storage budget; absent (in-process callers, no front): none applies. */
  budget?: DraftBudget | undefined;
  clock?: () => Date;
}

/**
 * Creates a metadata draft from an upload: fields validated with the spec's byte limits, exactly
 * one of `image` (file) or `image_url`, the image checked and re-encoded, stored under its
 * content address, and the metadataHash the launch transaction must carry. With a budget, an
 * upload that would take its client's unbound drafts past it is refused (429
 * `storage_budget_exceeded`) before anything is stored.
 */
export async function createDraft(services: DraftServices, upload: DraftUpload): Promise<DraftResponse> {
  const fields = draftFieldsSchema.parse(upload.fields);
  const hasUrl = fields.image_url !== undefined && fields.image_url.trim() !== '';
  if (Boolean(upload.file) === hasUrl) {
    throw new AppError('invalid_parameter', 'send exactly one of image (a file) or image_url', [
      { field: 'image', message: 'exactly one of image or image_url' },
    ]);
  }
  const now = services.clock ?? (() => new Date());
  const { db, budget } = services;
  // Cheap first: a client already at its budget is refused before its image is fetched or decoded.
  if (budget) checkBudget(budget, await heldByClient(db, budget.client), 1, now());
  const raw = upload.file
    ? Buffer.from(upload.file.bytes.buffer, upload.file.bytes.byteOffset, upload.file.bytes.byteLength)
    : await services.fetchImage((fields.image_url as string).trim());
  const image = await processImage(raw);
  const key = objectKeyFor(image.bytes, image.extension as 'png');
  const thumbnailKey = objectKeyFor(image.thumbnail, 'png');
  const metadataHash = metadataHashOf(fields, key);
  const id = `d_${randomBytes(12).toString('base64url')}`;
  // A draft weighs what it stores: its image and its text (the text is bounded, but 28,800
  // drafts a day of the largest text would otherwise fill the database unbudgeted).
  const textBytes = [
    fields.name,
    fields.symbol,
    fields.description,
    fields.website_url,
    fields.x_url,
    fields.telegram_url,
    fields.discord_url,
    fields.creator,
  ].reduce((sum, text) => sum + (text ? Buffer.byteLength(text) : 0), 0);
  const weight = image.bytes.length + image.thumbnail.length + textBytes;
  const createdAt = await db.transaction(async (transaction) => {
    const tx = transaction as unknown as Database;
    if (budget) {
      await lockClientBudget(tx, budget.client);
      checkBudget(budget, await heldByClient(tx, budget.client), weight, now());
    }
    // The row lock of the object's key, taken before the draft names it (draft-storage.ts).
    // The same image stored before thumbnails existed gains one now.
    await tx
      .insert(storedObjects)
      .values({
        key,
        sha256: key.slice(0, 64),
        contentType: image.contentType,
        size: image.bytes.length,
        thumbnailKey,
      })
      .onConflictDoUpdate({ target: storedObjects.key, set: { thumbnailKey } });
    const [row] = await tx
      .insert(metadataDrafts)
      .values({
        id,
        creator: fields.creator,
        name: fields.name,
        symbol: fields.symbol,
        initialSupply: fields.initial_supply,
        description: fields.description,
        websiteUrl: fields.website_url,
        xUrl: fields.x_url,
        telegramUrl: fields.telegram_url,
        discordUrl: fields.discord_url,
        imageKey: key,
        metadataHash,
        client: budget?.client ?? null,
        storedBytes: weight,
      })
      .returning({ createdAt: metadataDrafts.createdAt });
    return row?.createdAt;
  });
  // The bytes are written after the draft is committed: a purge that deleted this key before
  // (its lock came first) has finished deleting, so these bytes stay (draft-storage.ts).
  try {
    await Promise.all([
      services.objects.put(key, image.bytes),
      services.objects.put(thumbnailKey, image.thumbnail),
    ]);
  } catch (error) {
    // Nobody has the draft's id yet: undo it, and its object if no other draft names it.
    await db
      .transaction(async (transaction) => {
        const tx = transaction as unknown as Database;
        await tx.delete(metadataDrafts).where(eq(metadataDrafts.id, id));
        await releaseObjects(tx, services.objects, [key]);
      })
      .catch(() => {});
    throw error;
  }
  return {
    draft_id: id,
    metadata_hash: metadataHash,
    image_url: `/objects/${key}`,
    name: fields.name,
    symbol: fields.symbol,
    initial_supply: fields.initial_supply.toString(),
    description: fields.description,
    website_url: fields.website_url,
    x_url: fields.x_url,
    telegram_url: fields.telegram_url,
    discord_url: fields.discord_url,
    creator: fields.creator,
    created_at: (createdAt ?? new Date()).toISOString(),
  };
}
