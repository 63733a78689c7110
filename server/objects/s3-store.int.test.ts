import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStallProxy } from '../../test/stall-proxy';
import type { ObjectStoreConfig } from '../config';
import { objectKeyFor } from './keys';
import { createS3Store, type ObjectStore } from './store';

const BUCKET = 'launchdex-objects';
// s3rver's one built-in account (public test values); it checks the key id, not SigV4 signatures.
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

// A PNG signature, then every byte value: the round trip must be binary-exact, not text-safe.
const bytes = Buffer.concat([
  Buffer.from('89504e470d0a1a0a', 'hex'),
  Buffer.from(Array.from({ length: 256 }, (_, value) => value)),
]);
const key = objectKeyFor(bytes, 'png');

/**
 * The real `createS3Store` against s3rver, an S3-compatible server in this process on a loopback
 * port the kernel picks. Endpoint, region and credentials are explicit, so the SDK never looks
 * for credentials elsewhere (no instance metadata or STS): every request goes to 127.0.0.1.
 */
describe('S3 object store against a real S3-compatible server (s3rver)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'launchdex-s3rver-'));
  let server: S3rver;
  let config: Extract<ObjectStoreConfig, { kind: 's3' }>;
  let store: ObjectStore;
  /** A plain SDK client on the same bucket, to see what the store wrote without going through it. */
  let direct: S3Client;

  const storedKeys = async () => {
    const listing = await direct.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    return (listing.Contents ?? []).map((object) => ({ key: object.Key, size: object.Size }));
  };

  beforeAll(async () => {
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: BUCKET, configs: [] }],
    });
    const { port } = await server.run();
    config = {
      kind: 's3',
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      timeoutMs: 10_000,
      ...CREDENTIALS,
    };
    store = await createS3Store(config);
    direct = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: true,
      credentials: CREDENTIALS,
    });
  });

  afterAll(async () => {
    direct?.destroy();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('returns the exact bytes it stored, typed by the key', async () => {
    await store.put(key, bytes);
    const object = await store.get(key);
    expect(object?.contentType).toBe('image/png');
    expect(object?.size).toBe(bytes.length);
    expect(object?.body?.equals(bytes)).toBe(true);
  });

  it('answers HEAD with size and type and no body', async () => {
    expect(await store.get(key, { head: true })).toEqual({ size: bytes.length, contentType: 'image/png' });
  });

  it('stores objects as immutable for caches, with the type derived from the key', async () => {
    const head = await direct.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.CacheControl).toBe('public, max-age=31536000, immutable');
    expect(head.ContentType).toBe('image/png');
    expect(head.ContentLength).toBe(bytes.length);
  });

  it('answers undefined for a key the bucket does not hold', async () => {
    const unknown = `${'b'.repeat(64)}.png`;
    expect(await store.get(unknown)).toBeUndefined();
    expect(await store.get(unknown, { head: true })).toBeUndefined();
  });

  it('is idempotent: writing the same key twice leaves one object with the same bytes', async () => {
    await store.put(key, bytes);
    await store.put(key, bytes);
    expect(await storedKeys()).toEqual([{ key, size: bytes.length }]);
    expect((await store.get(key))?.body?.equals(bytes)).toBe(true);
  });

  it('rejects invalid keys before they reach the bucket, and never reads them', async () => {
    for (const bad of ['../escape.png', `sub/${key}`, `${key}.html`, `${'A'.repeat(64)}.png`]) {
      await expect(store.put(bad, bytes), bad).rejects.toThrow(/invalid object key/);
    }
    expect(await storedKeys()).toEqual([{ key, size: bytes.length }]);

    // Even an object that exists under a non-key name is out of the store's reach.
    const planted = `sub/${key}`;
    await direct.send(new PutObjectCommand({ Bucket: BUCKET, Key: planted, Body: bytes }));
    expect(await store.get(planted)).toBeUndefined();
    expect(await store.get(planted, { head: true })).toBeUndefined();
    expect(await store.get('../../../../etc/passwd')).toBeUndefined();
  });

  it('deletes an object by its key, idempotently, and refuses invalid keys', async () => {
    const other = Buffer.concat([bytes, Buffer.from('other')]);
    const otherKey = objectKeyFor(other, 'png');
    await store.put(otherKey, other);
    await store.delete(otherKey);
    expect(await store.get(otherKey)).toBeUndefined();
    // A missing key deletes fine: the purge may run twice over one object.
    await store.delete(otherKey);
    await expect(store.delete(`sub/${key}`)).rejects.toThrow(/invalid object key/);
    expect((await storedKeys()).map((object) => object.key)).toContain(key);
    expect((await storedKeys()).map((object) => object.key)).not.toContain(otherKey);
  });

  it('a bucket that hangs (open sockets, no answer) fails each request at S3_TIMEOUT_MS, and answers again after', async () => {
    const proxy = await startStallProxy(Number(new URL(config.endpoint ?? '').port));
    const slowStore = await createS3Store({
      ...config,
      endpoint: `http://127.0.0.1:${proxy.port}`,
      timeoutMs: 500,
    });
    try {
      const key = objectKeyFor(Buffer.from('stall'), 'png');
      await slowStore.put(key, Buffer.from('stall'));
      proxy.stall();
      for (const attempt of [
        () => slowStore.get(key),
        () => slowStore.get(key, { head: true }),
        // Another key: s3rver, unlike S3, may keep half a PUT that arrives after its client gave up.
        () => slowStore.put(objectKeyFor(Buffer.from('other'), 'png'), Buffer.from('other')),
      ]) {
        const started = performance.now();
        await expect(attempt()).rejects.toMatchObject({ code: 'unavailable', status: 503 });
        const ms = performance.now() - started;
        expect(ms).toBeGreaterThanOrEqual(450);
        expect(ms).toBeLessThan(1_500);
      }
      proxy.resume();
      expect((await slowStore.get(key))?.body?.toString()).toBe('stall');
    } finally {
      proxy.resume();
      await proxy.close();
    }
  });
});
