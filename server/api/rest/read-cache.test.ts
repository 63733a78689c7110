import { describe, expect, it } from 'vitest';
import { createReadCache } from './read-cache';

const answer = (version: bigint, size: number) => ({
  version,
  body: Buffer.alloc(size, 0x61),
  etag: `"v${version}"`,
});

describe('read cache', () => {
  it('serves an answer only for the version it was computed at', () => {
    const cache = createReadCache(1_000_000);
    cache.set('/tokens', answer(3n, 10));
    expect(cache.get('/tokens', 3n)?.etag).toBe('"v3"');
    expect(cache.get('/tokens', 4n)).toBeUndefined();
    expect(cache.get('/other', 3n)).toBeUndefined();
  });

  it('stays within its byte budget, dropping the least recently used first', () => {
    const cache = createReadCache(3 * (1_000 + 200 + 4));
    cache.set('/a', answer(1n, 1_000));
    cache.set('/b', answer(1n, 1_000));
    cache.set('/c', answer(1n, 1_000));
    expect(cache.get('/a', 1n)).toBeDefined();
    cache.set('/d', answer(1n, 1_000));
    expect(cache.get('/b', 1n)).toBeUndefined();
    expect(cache.get('/a', 1n)).toBeDefined();
    expect(cache.bytes).toBeLessThanOrEqual(3 * 1_204);
    // An answer larger than the whole budget is not kept.
    cache.set('/huge', answer(1n, 10_000));
    expect(cache.get('/huge', 1n)).toBeUndefined();
  });

  it('replacing an entry keeps the byte count exact', () => {
    const cache = createReadCache(1_000_000);
    cache.set('/a', answer(1n, 500));
    const first = cache.bytes;
    cache.set('/a', answer(2n, 500));
    expect(cache.bytes).toBe(first);
  });
});
