import { describe, expect, it } from 'vitest';
import { type CachedAnswer, createReadCache, ownedBuffer } from './read-cache';

const answer = (version: bigint, size: number): CachedAnswer => ({
  version,
  body: Buffer.alloc(size, 0x61),
  etag: `"v${version}"`,
});

/** A computation that finishes when the test says so, counting its runs. */
function gate() {
  let runs = 0;
  let open: (value: CachedAnswer) => void = () => {};
  let fail: (error: Error) => void = () => {};
  return {
    compute: () => {
      runs++;
      return new Promise<CachedAnswer>((resolve, reject) => {
        open = resolve;
        fail = reject;
      });
    },
    open: (value: CachedAnswer) => open(value),
    fail: (error: Error) => fail(error),
    runs: () => runs,
  };
}

describe('read cache', () => {
  it('serves an answer only for the version it was computed at', () => {
    const cache = createReadCache(1_000_000);
    cache.set('/tokens', answer(3n, 10));
    expect(cache.get('/tokens', 3n)?.etag).toBe('"v3"');
    expect(cache.get('/tokens', 4n)).toBeUndefined();
    expect(cache.get('/other', 3n)).toBeUndefined();
  });

  it('stays within its byte budget, dropping the least recently used first', () => {
    const one = createReadCache(1_000_000);
    one.set('/a', answer(1n, 1_000));
    const entry = one.bytes;
    const cache = createReadCache(3 * entry);
    cache.set('/a', answer(1n, 1_000));
    cache.set('/b', answer(1n, 1_000));
    cache.set('/c', answer(1n, 1_000));
    expect(cache.get('/a', 1n)).toBeDefined();
    cache.set('/d', answer(1n, 1_000));
    expect(cache.get('/b', 1n)).toBeUndefined();
    expect(cache.get('/a', 1n)).toBeDefined();
    expect(cache.bytes).toBeLessThanOrEqual(3 * entry);
    expect(cache.stats.evicted).toBe(1);
    // An answer larger than the whole budget is not kept.
    cache.set('/huge', answer(1n, 10_000));
    expect(cache.get('/huge', 1n)).toBeUndefined();
  });

  it('counts the key, the body, the tag and an overhead per entry', () => {
    const cache = createReadCache(1_000_000);
    cache.set('/a', answer(1n, 500));
    const small = cache.bytes;
    expect(small).toBeGreaterThan(500 + 2 * '/a'.length + 2 * '"v1"'.length);
    cache.set('/b'.padEnd(1_002, 'x'), answer(1n, 500));
    expect(cache.bytes - small).toBe(small + 2 * 1_000);
  });

  it('replacing an entry keeps the byte count exact', () => {
    const cache = createReadCache(1_000_000);
    cache.set('/a', answer(1n, 500));
    const first = cache.bytes;
    cache.set('/a', answer(2n, 500));
    expect(cache.bytes).toBe(first);
    expect(cache.entries).toBe(1);
  });

  it('an answer of an older version never replaces a newer one', () => {
    const cache = createReadCache(1_000_000);
    cache.set('/a', answer(5n, 10));
    cache.set('/a', answer(4n, 10));
    expect(cache.get('/a', 5n)?.etag).toBe('"v5"');
  });

  it('bodies own their memory (no shared 8 KiB pool slab is kept alive by a small answer)', () => {
    const body = ownedBuffer('{"items":[]}');
    expect(body.toString()).toBe('{"items":[]}');
    expect(body.buffer.byteLength).toBe(body.byteLength);
    // What Buffer.from does for a small string, for contrast: a slice of a shared slab.
    expect(Buffer.from('{"items":[]}').buffer.byteLength).toBeGreaterThan(12);
  });
});

describe('read cache, single flight', () => {
  it('N concurrent misses of one key and version compute once; all get the same answer', async () => {
    const cache = createReadCache(1_000_000);
    const fill = gate();
    const waiting = Array.from({ length: 16 }, () => cache.answer('/a', 1n, fill.compute));
    await Promise.resolve();
    expect(fill.runs()).toBe(1);
    fill.open(answer(1n, 10));
    const results = await Promise.all(waiting);
    expect(results.map((r) => r.outcome).sort()).toEqual(['miss', ...Array(15).fill('joined')].sort());
    expect(new Set(results.map((r) => r.answer)).size).toBe(1);
    expect(cache.stats).toMatchObject({ miss: 1, joined: 15, hit: 0 });
    expect((await cache.answer('/a', 1n, fill.compute)).outcome).toBe('hit');
    expect(fill.runs()).toBe(1);
  });

  it('a newer version does not join a computation of an older one', async () => {
    const cache = createReadCache(1_000_000);
    const older = gate();
    const newer = gate();
    const first = cache.answer('/a', 1n, older.compute);
    const second = cache.answer('/a', 2n, newer.compute);
    await Promise.resolve();
    expect([older.runs(), newer.runs()]).toEqual([1, 1]);
    newer.open(answer(2n, 10));
    older.open(answer(1n, 10));
    expect((await first).answer.version).toBe(1n);
    expect((await second).answer.version).toBe(2n);
    // The older fill finished last and did not replace the newer answer.
    expect(cache.get('/a', 2n)?.version).toBe(2n);
  });

  it('a read on another database does not join (a frozen replica fails only its own readers)', async () => {
    const cache = createReadCache(1_000_000);
    const onReplica = gate();
    const onPrimary = gate();
    const replicaRead = cache.answer('/a', 1n, onReplica.compute, undefined, 'replica');
    const primaryRead = cache.answer('/a', 1n, onPrimary.compute, undefined, 'primary');
    await Promise.resolve();
    expect([onReplica.runs(), onPrimary.runs()]).toEqual([1, 1]);
    onPrimary.open(answer(1n, 10));
    expect((await primaryRead).outcome).toBe('miss');
    onReplica.fail(new Error('connection cut'));
    await expect(replicaRead).rejects.toThrow('connection cut');
    // What the primary computed serves both databases' readers at that version.
    expect((await cache.answer('/a', 1n, onReplica.compute, undefined, 'replica')).outcome).toBe('hit');
  });

  it('a failed computation reaches every request that joined it and is not kept', async () => {
    const cache = createReadCache(1_000_000);
    const fill = gate();
    const waiting = [cache.answer('/a', 1n, fill.compute), cache.answer('/a', 1n, fill.compute)];
    await Promise.resolve();
    fill.fail(new Error('database went away'));
    for (const result of await Promise.allSettled(waiting)) expect(result.status).toBe('rejected');
    const retry = gate();
    const again = cache.answer('/a', 1n, retry.compute);
    expect(retry.runs()).toBe(1);
    retry.open(answer(1n, 10));
    expect((await again).outcome).toBe('miss');
  });

  it('a miss waiting for its admission does not hold up another request for the same key', async () => {
    const cache = createReadCache(1_000_000);
    let admitQueued: () => void = () => {};
    const queued = new Promise<void>((resolve) => {
      admitQueued = resolve;
    });
    const blocked = gate();
    // The first request waits for its client's turn (its client has other reads in flight).
    const first = cache.answer('/a', 1n, blocked.compute, async () => {
      await queued;
      return () => {};
    });
    const free = gate();
    const second = cache.answer('/a', 1n, free.compute, async () => () => {});
    await new Promise((resolve) => setImmediate(resolve));
    expect([blocked.runs(), free.runs()]).toEqual([0, 1]);
    free.open(answer(1n, 10));
    expect((await second).outcome).toBe('miss');
    // Once admitted, the first finds the answer stored meanwhile and computes nothing.
    admitQueued();
    expect((await first).outcome).toBe('hit');
    expect(blocked.runs()).toBe(0);
  });

  it('releases its admission whatever happens', async () => {
    const cache = createReadCache(1_000_000);
    let released = 0;
    const admit = async () => () => {
      released++;
    };
    const failing = gate();
    const failed = cache.answer('/a', 1n, failing.compute, admit);
    await new Promise((resolve) => setImmediate(resolve));
    failing.fail(new Error('timeout'));
    await expect(failed).rejects.toThrow('timeout');
    const ok = gate();
    const answered = cache.answer('/b', 1n, ok.compute, admit);
    await new Promise((resolve) => setImmediate(resolve));
    ok.open(answer(1n, 10));
    await answered;
    expect(released).toBe(2);
  });
});
