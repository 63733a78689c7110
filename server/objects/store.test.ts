import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isObjectKey, objectKeyFor } from './keys';
import { serveObject } from './serve';
import { createFilesystemStore } from './store';

const dir = mkdtempSync(path.join(tmpdir(), 'launchdex-objects-'));
const store = createFilesystemStore(dir);
const bytes = Buffer.from('89504e470d0a1a0a-not-really-but-bytes', 'utf8');
const key = objectKeyFor(bytes, 'png');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const request = (method: string, headers: Record<string, string> = {}) =>
  new Request('http://x/objects/k', { method, headers });

describe('object keys', () => {
  it('are content addresses with an image extension, nothing else', () => {
    expect(key).toMatch(/^[0-9a-f]{64}\.png$/);
    for (const bad of [
      '../etc/passwd',
      '..%2F..%2Fetc%2Fpasswd',
      `${'a'.repeat(64)}.svg`,
      `${'A'.repeat(64)}.png`,
      `${'a'.repeat(63)}.png`,
      `${'a'.repeat(64)}.png/..`,
      `sub/${'a'.repeat(64)}.png`,
      `${'a'.repeat(64)}.png\u0000.html`,
      '.png',
      '',
    ]) {
      expect(isObjectKey(bad), bad).toBe(false);
    }
  });
});

describe('filesystem object store', () => {
  it('stores atomically, is idempotent and leaves no temp files', async () => {
    await store.put(key, bytes);
    await store.put(key, bytes);
    expect(readdirSync(dir)).toEqual([key]);
    expect((await store.get(key))?.body).toEqual(bytes);
    expect(await store.get(key, { head: true })).toEqual({ size: bytes.length, contentType: 'image/png' });
  });

  it('refuses to write or read outside its directory', async () => {
    await expect(store.put('../escape.png', bytes)).rejects.toThrow(/invalid object key/);
    expect(await store.get('../../../../etc/passwd')).toBeUndefined();
    await expect(store.delete('../escape.png')).rejects.toThrow(/invalid object key/);
  });

  it('deletes by key, and deleting a missing key succeeds (the purge may repeat itself)', async () => {
    const other = Buffer.from('another object');
    const otherKey = objectKeyFor(other, 'png');
    await store.put(otherKey, other);
    await store.delete(otherKey);
    expect(await store.get(otherKey)).toBeUndefined();
    await store.delete(otherKey);
    expect(readdirSync(dir)).toEqual([key]);
  });
});

describe('GET/HEAD /objects/<key>', () => {
  it('serves the bytes with the stored type and immutable, hardened headers', async () => {
    const response = await serveObject(request('GET'), key, store);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('etag')).toBe(`"${key.slice(0, 64)}"`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('answers 304 to a matching If-None-Match and HEAD without a body', async () => {
    const etag = `"${key.slice(0, 64)}"`;
    const cached = await serveObject(request('GET', { 'if-none-match': etag }), key, store);
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    const head = await serveObject(request('HEAD'), key, store);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect(await head.text()).toBe('');
  });

  it('is 404 JSON for unknown and malformed keys', async () => {
    for (const missing of [`${'b'.repeat(64)}.png`, '../secret', `${key}.html`]) {
      const response = await serveObject(request('GET'), missing, store);
      expect(response.status, missing).toBe(404);
      expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'no such object' } });
    }
  });
});
