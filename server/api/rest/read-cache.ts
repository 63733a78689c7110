/** A serialized 200 answer of a read, and the read-model version it was computed at (or after). */
export interface CachedAnswer {
  version: bigint;
  body: Buffer;
  etag: string;
}

export interface ReadCache {
  /** The answer stored for `key` if it was computed at `version` (or later), else undefined. */
  get(key: string, version: bigint): CachedAnswer | undefined;
  set(key: string, answer: CachedAnswer): void;
  /** Bytes held, for tests and metrics. */
  readonly bytes: number;
}

/** Map overhead per entry besides the key and body, a rough constant. */
const ENTRY_OVERHEAD = 200;

/**
 * Serialized answers keyed by (route, canonical input), least recently used first out past
 * `maxBytes`. An answer is only served for the version it was computed at: the version is read
 * before the data, so the data is at least that new, and a newer version misses.
 */
export function createReadCache(maxBytes: number): ReadCache {
  const entries = new Map<string, CachedAnswer>();
  let bytes = 0;
  const sizeOf = (key: string, answer: CachedAnswer) =>
    key.length * 2 + answer.body.byteLength + ENTRY_OVERHEAD;
  const remove = (key: string) => {
    const old = entries.get(key);
    if (!old) return;
    entries.delete(key);
    bytes -= sizeOf(key, old);
  };
  return {
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
      remove(key);
      entries.set(key, answer);
      bytes += size;
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break;
        remove(oldest);
      }
    },
    get bytes() {
      return bytes;
    },
  };
}
