/**
 * Rendered share cards, one per token, for one read-model version each. A card only changes when
 * the read model does (a block is indexed, metadata is finalized, a token is moderated), so a
 * token's card is drawn once per version however many unfurlers and clients ask, and concurrent
 * requests for a card being drawn wait for that drawing instead of starting their own.
 */

/** What a card request gets: the PNG, or null when the token has no card (unknown or hidden). */
export type Card = Buffer | null;

/** `rendered`: drawn for this request; `joined`: waited for another request's drawing; `hit`: memory. */
export type CardOutcome = 'hit' | 'joined' | 'rendered';

export interface CardCacheStats {
  hit: number;
  joined: number;
  rendered: number;
  evicted: number;
}

export interface CardCache {
  /**
   * The card of `token` at read-model `version`: from memory, by joining its drawing under way, or
   * drawn now by `render`. A failed drawing is not kept; the next request draws again.
   */
  get(
    token: string,
    version: bigint,
    render: () => Promise<Card>,
  ): Promise<{ card: Card; outcome: CardOutcome }>;
  readonly bytes: number;
  readonly entries: number;
  readonly stats: Readonly<CardCacheStats>;
}

/** Counted per entry besides the PNG: the key, the version, the map's bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * A cache of at most `maxBytes` (PNG bytes plus a fixed overhead per entry), least recently used
 * first out. One entry per token: a newer version replaces the older card, so memory does not
 * grow with blocks, and a "no card" answer costs only the overhead.
 */
export function createCardCache(maxBytes: number): CardCache {
  const entries = new Map<string, { version: bigint; card: Card; size: number }>();
  const drawing = new Map<string, Promise<Card>>();
  const stats: CardCacheStats = { hit: 0, joined: 0, rendered: 0, evicted: 0 };
  let bytes = 0;

  const remove = (token: string) => {
    const entry = entries.get(token);
    if (!entry) return;
    entries.delete(token);
    bytes -= entry.size;
  };
  const store = (token: string, version: bigint, card: Card) => {
    const current = entries.get(token);
    // A slow drawing of an older version never replaces a newer card.
    if (current && current.version > version) return;
    remove(token);
    const size = (card?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
    if (size > maxBytes) return;
    entries.set(token, { version, card, size });
    bytes += size;
    for (const [oldest] of entries) {
      if (bytes <= maxBytes) break;
      remove(oldest);
      stats.evicted++;
    }
  };

  return {
    async get(token, version, render) {
      const entry = entries.get(token);
      if (entry && entry.version === version) {
        // Map order is insertion order: moving the entry to the end makes it the most recent.
        entries.delete(token);
        entries.set(token, entry);
        stats.hit++;
        return { card: entry.card, outcome: 'hit' };
      }
      const key = `${token}@${version}`;
      const pending = drawing.get(key);
      if (pending) {
        stats.joined++;
        return { card: await pending, outcome: 'joined' };
      }
      const drawn = render()
        .then((card) => {
          stats.rendered++;
          store(token, version, card);
          return card;
        })
        .finally(() => drawing.delete(key));
      drawing.set(key, drawn);
      return { card: await drawn, outcome: 'rendered' };
    },
    get bytes() {
      return bytes;
    },
    get entries() {
      return entries.size;
    },
    stats,
  };
}
