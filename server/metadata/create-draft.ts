import { randomBytes } from 'node:crypto';
import type { DraftResponse } from '../../shared/metadata/api';
import { draftFieldsSchema } from '../../shared/metadata/draft-fields';
import type { Database } from '../db/client';
import { metadataDrafts, storedObjects } from '../db/schema';
import { AppError } from '../errors';
import { objectKeyFor } from '../objects/keys';
import type { ObjectStore } from '../objects/store';
import type { ImageFetcher } from './fetch-image';
import { processImage } from './image';
import { metadataHashOf } from './metadata-hash';
import type { DraftUpload } from './multipart';

export interface DraftServices {
  db: Database;
  objects: ObjectStore;
  fetchImage: ImageFetcher;
}

/**
 * Creates a metadata draft from an upload: fields validated with the spec's byte limits, exactly
 * one of `image` (file) or `image_url`, the image checked and re-encoded, stored under its
 * content address, and the metadataHash the launch transaction must carry.
 */
export async function createDraft(services: DraftServices, upload: DraftUpload): Promise<DraftResponse> {
  const fields = draftFieldsSchema.parse(upload.fields);
  const hasUrl = fields.image_url !== undefined && fields.image_url.trim() !== '';
  if (Boolean(upload.file) === hasUrl) {
    throw new AppError('invalid_parameter', 'send exactly one of image (a file) or image_url', [
      { field: 'image', message: 'exactly one of image or image_url' },
    ]);
  }
  const raw = upload.file
    ? Buffer.from(upload.file.bytes.buffer, upload.file.bytes.byteOffset, upload.file.bytes.byteLength)
    : await services.fetchImage((fields.image_url as string).trim());
  const image = await processImage(raw);
  const key = objectKeyFor(image.bytes, image.extension as 'png');
  const thumbnailKey = objectKeyFor(image.thumbnail, 'png');
  await Promise.all([
    services.objects.put(key, image.bytes),
    services.objects.put(thumbnailKey, image.thumbnail),
  ]);
  await services.db
    .insert(storedObjects)
    .values({
      key,
      sha256: key.slice(0, 64),
      contentType: image.contentType,
      size: image.bytes.length,
      thumbnailKey,
    })
    // The same image stored before thumbnails existed gains one now.
    .onConflictDoUpdate({ target: storedObjects.key, set: { thumbnailKey } });
  const metadataHash = metadataHashOf(fields, key);
  const id = `d_${randomBytes(12).toString('base64url')}`;
  const [row] = await services.db
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
    })
    .returning({ createdAt: metadataDrafts.createdAt });
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
    created_at: (row?.createdAt ?? new Date()).toISOString(),
  };
}
