import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { availableBackends } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import type { DatabaseHandle } from '../db/client';
import { storedObjects } from '../db/schema';
import { createFilesystemStore } from '../objects/store';
import { cardLogo } from '../tokens/share-card';
import { createDraft } from './create-draft';
import { THUMBNAIL_SIZE } from './image';

const [backend] = await availableBackends();
if (!backend) throw new Error('no backend');

const picture = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();

/** The colour at the centre of a PNG, as [r, g, b]. */
async function centre(png: Buffer): Promise<number[]> {
  const { width = 0, height = 0 } = await sharp(png).metadata();
  const { data } = await sharp(png)
    .extract({ left: Math.floor(width / 2), top: Math.floor(height / 2), width: 1, height: 1 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return [...data.subarray(0, 3)];
}

describe(`a stored image keeps a thumbnail, and cards decode it (${backend})`, () => {
  let handle: DatabaseHandle;
  const objectsDir = mkdtempSync(path.join(tmpdir(), 'launchdex-thumbnails-'));
  const objects = createFilesystemStore(objectsDir);
  let counter = 0;
  const upload = (image: Buffer) =>
    createDraft(
      {
        db: handle.db,
        objects,
        fetchImage: async () => {
          throw new Error('no image_url in these drafts');
        },
      },
      {
        fields: {
          name: `Thumb ${++counter}`,
          symbol: `TH${counter}`,
          initial_supply: (10n ** 27n).toString(),
        },
        file: { bytes: new Uint8Array(image), filename: 'logo.png' },
      },
    );
  const rowOf = async (imageUrl: string) =>
    (
      await handle.db
        .select()
        .from(storedObjects)
        .where(eq(storedObjects.key, imageUrl.slice('/objects/'.length)))
    )[0];

  testDatabaseForTests(
    backend,
    (opened) => {
      handle = opened.handle;
    },
    60_000,
  );
  afterAll(() => rmSync(objectsDir, { recursive: true, force: true }));

  it('an upload stores a 256 px PNG thumbnail and its key; the card logo comes from it alone', async () => {
    // 12 megapixels: what a card must not decode per request.
    const draft = await upload(await picture(4000, 3000, '#ff8800'));
    const row = await rowOf(draft.image_url);
    expect(row?.thumbnailKey).toMatch(/^[0-9a-f]{64}\.png$/);
    const thumbnail = await objects.get(row?.thumbnailKey as string);
    const { format, width, height } = await sharp(thumbnail?.body as Buffer).metadata();
    expect([format, width, height]).toEqual(['png', THUMBNAIL_SIZE, THUMBNAIL_SIZE]);

    // With the original gone, the logo is still drawn: it was never read.
    unlinkSync(path.join(objectsDir, draft.image_url.slice('/objects/'.length)));
    const logo = await cardLogo({ db: handle.db, objects }, draft.image_url, 200);
    expect(await centre(logo as Buffer)).toEqual([0xff, 0x88, 0x00]);
  });

  it('an image stored before thumbnails: an avatar-sized original is drawn, a larger one is not decoded', async () => {
    const small = await upload(await picture(512, 512, '#00ff00'));
    const large = await upload(await picture(2000, 2000, '#0000ff'));
    for (const draft of [small, large])
      await handle.db
        .update(storedObjects)
        .set({ thumbnailKey: null })
        .where(eq(storedObjects.key, draft.image_url.slice('/objects/'.length)));

    const smallLogo = await cardLogo({ db: handle.db, objects }, small.image_url, 200);
    expect(await centre(smallLogo as Buffer)).toEqual([0, 0xff, 0]);
    // 4 megapixels is past LOGO_MAX_PIXELS (1 MP): the card goes without the logo.
    expect(await cardLogo({ db: handle.db, objects }, large.image_url, 200)).toBeNull();

    // Uploading the same image again gives the old row its thumbnail.
    await upload(await picture(2000, 2000, '#0000ff'));
    expect((await rowOf(large.image_url))?.thumbnailKey).toMatch(/^[0-9a-f]{64}\.png$/);
    expect(
      await centre((await cardLogo({ db: handle.db, objects }, large.image_url, 200)) as Buffer),
    ).toEqual([0, 0, 0xff]);
  });

  it('no logo for a token without metadata or with an image that is not in the store', async () => {
    expect(await cardLogo({ db: handle.db, objects }, undefined, 200)).toBeNull();
    expect(await cardLogo({ db: handle.db, objects }, `/objects/${'0'.repeat(64)}.png`, 200)).toBeNull();
  });
});
