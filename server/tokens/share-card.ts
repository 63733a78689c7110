import { eq } from 'drizzle-orm';
import { getConfig } from '../config';
import { type Database, getDatabase } from '../db';
import { createReadVersion, type ReadVersion } from '../db/read-version';
import { storedObjects } from '../db/schema';
import { logoPng } from '../metadata/image';
import { getObjectStore, type ObjectStore } from '../objects/store';
import { type CardCache, createCardCache } from './card-cache';

/**
 * Memory for rendered share cards per process. A card is a 1200×630 PNG of 30–120 KB, so this
 * keeps the cards of a few hundred tokens; past it the least recently asked for are dropped.
 */
export const CARD_CACHE_BYTES = 16 * 2 ** 20;

const slot: {
  shareCards?: { cache: CardCache; version?: ReadVersion };
} = {};

/** The process's cards. */
function processCards() {
  slot.shareCards ??= { cache: createCardCache(CARD_CACHE_BYTES) };
  return slot.shareCards;
}

export function shareCardCache(): CardCache {
  return processCards().cache;
}

/** The read-model version cards are keyed by: it moves with every indexed block, finalize and moderation. */
export async function cardVersion(): Promise<bigint> {
  const cards = processCards();
  cards.version ??= createReadVersion((await getDatabase(getConfig())).db);
  return cards.version.current();
}

/** Where a card's logo comes from: the object index and the object store. */
export interface LogoSources {
  db: Database;
  objects: ObjectStore;
}

/** This process's database and object store. */
export async function processLogoSources(): Promise<LogoSources> {
  const config = getConfig();
  const [{ db }, objects] = await Promise.all([getDatabase(config), getObjectStore(config.objects)]);
  return { db, objects };
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
