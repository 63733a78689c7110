import { type ReleaseTurn, whileHolding } from '../database-share';

/** A serialized 200 answer of a read, and the read-model version it was computed at (or after). */
export interface CachedAnswer {
  version: bigint;
  body: Buffer;
  etag: string;
  /** The answer's indexed_through_block, when it has one (X-Indexed-Through-Block). */
  block?: number;
}

/** How a read was answered by the cache, for metrics and the per-client database share. */
export type CacheOutcome = 'hit' | 'miss' | 'joined';

/** An answer and how the cache came by it. */
export interface CacheServed {
  answer: CachedAnswer;
  outcome: CacheOutcome;
}

/** Cumulative counts since the cache was made. */
export interface ReadCacheStats {
  hit: number;
  miss: number;
  joined: number;
  evicted: number;
}

export interface ReadCache {
  /** The answer stored for `key` if it was computed at `version`, else undefined. */
  get(key: string, version: bigint): CachedAnswer | undefined;
  set(key: string, answer: CachedAnswer): void;
  /**
   * The answer for `key` at `version`: from memory, from a computation of the same key and version
   * already under way (single flight: N concurrent misses run `compute` once), or from `compute`.
   * A miss first waits for `admit` (the client's database share) and holds what it returns until
   * it is answered, so a request still waiting its turn never holds up another client that asks
   * for the same key: only running computations are joined. A failed computation is not kept;
   * every request that joined it gets its error. A hit is answered at once, not as a promise:
   * the hot path of a busy server makes no promise it need not (each costs more on Node 20 once
   * Next.js has turned async hooks on). Only a computation on the same `source` (the database it
   * reads) is joined: a read on the primary must not wait out, or fail with, a frozen replica's.
   */
  answer(
    key: string,
    version: bigint,
    compute: () => Promise<CachedAnswer>,
    admit?: () => ReleaseTurn | Promise<ReleaseTurn>,
    source?: string,
  ): CacheServed | Promise<CacheServed>;
  /** Bytes held (keys, bodies, tags and a per-entry overhead), for tests and metrics. */
  readonly bytes: number;
  readonly entries: number;
  readonly stats: Readonly<ReadCacheStats>;
}

/**
 * Per entry besides the key, body and tag: the Map entry, the answer object, its bigint, the
 * Buffer object and its ArrayBuffer. Measured (node --expose-gc, 100k entries with 93-character
 * keys and 230-byte bodies; heap and array buffers after a full GC): 977 B held per entry, of which
 * the key counted at 2 B a character, the body and the tag make 444 B.
 */
const ENTRY_OVERHEAD = 540;

/** A body in a Buffer of its own: Node's pooled small Buffers share 8 KiB slabs, which a cached
 * slice would keep alive whole, so the bound would count a fraction of what is held. */
export function ownedBuffer(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const buffer = Buffer.allocUnsafeSlow(length);
  buffer.write(text, 0, length, 'utf8');
  return buffer;
}

/**
 * Serialized answers keyed by (route, canonical input), least recently used first out past
 * `maxBytes`. An answer is only served for the version it was computed at: the version is read
 * before the data, so the data is at least that new, and a newer version misses.
 */
export function createReadCache(maxBytes: number): ReadCache {
  const entries = new Map<string, CachedAnswer>();
  const filling = new Map<string, { version: bigint; source: string; done: Promise<CachedAnswer> }>();
  const stats: ReadCacheStats = { hit: 0, miss: 0, joined: 0, evicted: 0 };
  let bytes = 0;
  // A string of n characters holds n bytes (Latin-1) or 2n: counted as 2n, an upper bound.
  const sizeOf = (key: string, answer: CachedAnswer) =>
    key.length * 2 + answer.body.byteLength + answer.etag.length * 2 + ENTRY_OVERHEAD;
  const remove = (key: string) => {
    const old = entries.get(key);
    if (!old) return;
    entries.delete(key);
    bytes -= sizeOf(key, old);
  };
  const cache: ReadCache = {
    get(key, version) {
      const answer = entries.get(key);
      if (!answer) return undefined;
      if (answer.version !== version) return undefined;
      // Re-insert: Map order is the recency order.
      entries.delete(key);
      entries.set(key, answer);
      return answer;
    },
    set(key, answer) {
      const size = sizeOf(key, answer);
      if (size > maxBytes) return;
      const held = entries.get(key);
      // A slow fill of an older version must not replace a newer answer stored meanwhile.
      if (held && held.version > answer.version) return;
      remove(key);
      entries.set(key, answer);
      bytes += size;
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break;
        remove(oldest);
        stats.evicted++;
      }
    },
    answer(key, version, compute, admit, source = '') {
      const hit = cache.get(key, version);
      if (hit) {
        stats.hit++;
        return { answer: hit, outcome: 'hit' };
      }
      return fill(key, version, compute, admit, source);
    },
    get bytes() {
      return bytes;
    },
    get entries() {
      return entries.size;
    },
    stats,
  };
  /** A miss: waits its turn, then joins a computation of the same key and version or runs one. */
  async function fill(
    key: string,
    version: bigint,
    compute: () => Promise<CachedAnswer>,
    admit: (() => ReleaseTurn | Promise<ReleaseTurn>) | undefined,
    source: string,
  ): Promise<CacheServed> {
    const turn = admit?.();
    return whileHolding(turn instanceof Promise ? await turn : turn, async () => {
      // Filled while this request waited for its turn.
      const late = cache.get(key, version);
      if (late) {
        stats.hit++;
        return { answer: late, outcome: 'hit' };
      }
      const underWay = filling.get(key);
      if (underWay && underWay.version === version && underWay.source === source) {
        stats.joined++;
        return { answer: await underWay.done, outcome: 'joined' };
      }
      stats.miss++;
      const done = compute();
      const entry = { version, source, done };
      filling.set(key, entry);
      try {
        const answer = await done;
        cache.set(key, answer);
        return { answer, outcome: 'miss' };
      } finally {
        if (filling.get(key) === entry) filling.delete(key);
      }
    });
  }
  return cache;
}
