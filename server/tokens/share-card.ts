import { eq } from 'drizzle-orm';
import type { Database } from '../db';
import { storedObjects } from '../db/schema';
import { logoPng } from '../metadata/image';
import type { ObjectStore } from '../objects/store';

/**
 * Memory for rendered share cards per process. A card is a 1200×630 PNG of 30–120 KB, so this
 * keeps the cards of a few hundred tokens; past it the least recently asked for are dropped.
 */
export const CARD_CACHE_BYTES = 16 * 2 ** 20;

/** Where a card's logo comes from: the object index and the object store. */
export interface LogoSources {
  db: Database;
  objects: ObjectStore;
}

/**
 * The bound logo of a token (its detail's `image_url`, `/objects/<key>`) as a `side` square PNG,
 * decoded from the stored thumbnail. An image stored before thumbnails existed is decoded only
 * when it is avatar-sized (LOGO_MAX_PIXELS); otherwise, or when anything is missing, null.
 */
export async function cardLogo(
  sources: LogoSources,
  imageUrl: string | undefined,
  side: number,
): Promise<Buffer | null> {
  const key = imageUrl?.startsWith('/objects/') ? imageUrl.slice('/objects/'.length) : undefined;
  if (!key) return null;
  const [row] = await sources.db
    .select({ thumbnailKey: storedObjects.thumbnailKey })
    .from(storedObjects)
    .where(eq(storedObjects.key, key))
    .limit(1);
  const stored = await sources.objects.get(row?.thumbnailKey ?? key);
  return stored?.body ? logoPng(stored.body, side) : null;
}
