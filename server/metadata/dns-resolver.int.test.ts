import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackDnsServer, startLoopbackDns } from '../../test/dns-server';
import { createDnsResolver } from './dns-resolver';
import { createImageFetcher } from './fetch-image';
import { checkImageUrl, pinPublicAddress } from './ssrf';

// Every query goes to a loopback UDP port of this test; nothing here asks any other name server.
let answering: LoopbackDnsServer;
let silent: LoopbackDnsServer;

beforeAll(async () => {
  answering = await startLoopbackDns({
    records: {
      'both.test': ['93.184.216.34', '2606:2800:220:1::1'],
      'v4only.test': ['93.184.216.34'],
      'private.test': ['10.0.0.7'],
      'mixed.test': ['93.184.216.34', 'fd00::1'],
    },
  });
  silent = await startLoopbackDns({ silent: true });
});

afterAll(async () => {
  await answering?.close();
  await silent?.close();
});

describe('image_url DNS through c-ares (createDnsResolver)', () => {
  it('asks for A and AAAA and returns every answer of both families', async () => {
    const resolve = createDnsResolver({ servers: [answering.address], timeoutMs: 1_000 });
    expect(await resolve('both.test')).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    expect(
      answering.queries
        .filter((q) => q.name === 'both.test')
        .map((q) => q.type)
        .sort(),
    ).toEqual(['A', 'AAAA']);
    // A name without AAAA records still resolves: one family answering is enough.
    expect(await resolve('v4only.test')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    await expect(resolve('unknown.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('keeps the SSRF rules: a private answer, or one private answer among public ones, is refused', async () => {
    const resolve = createDnsResolver({ servers: [answering.address], timeoutMs: 1_000 });
    for (const name of ['private.test', 'mixed.test', 'unknown.test'])
      await expect(pinPublicAddress(checkImageUrl(`https://${name}/a.png`), resolve)).rejects.toMatchObject({
        code: 'image_url_forbidden',
      });
    expect(await pinPublicAddress(checkImageUrl('https://both.test/a.png'), resolve)).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('a name server that never answers: 6 parallel fetches fail at the 1 s DNS deadline while file reads and sharp run at once', async () => {
    const fetchImage = createImageFetcher({
      resolver: createDnsResolver({ servers: [silent.address], timeoutMs: 1_000 }),
      dnsTimeoutMs: 1_000,
      timeoutMs: 10_000,
    });
    const started = performance.now();
    const settled: number[] = [];
    const stalls = Array.from({ length: 6 }, (_, i) =>
      fetchImage(`https://stall-${i}.test/logo.png`).then(
        () => 'fetched',
        (error: { code?: string; message?: string }) => {
          settled.push(performance.now() - started);
          return error;
        },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    // getaddrinfo would hold all 4 of libuv's pool threads now; c-ares holds none of them.
    const sideStarted = performance.now();
    const [file, image] = await Promise.all([
      readFile(new URL(import.meta.url)),
      sharp({ create: { width: 512, height: 512, channels: 3, background: '#123456' } })
        .png()
        .toBuffer(),
    ]);
    const sideMs = performance.now() - sideStarted;
    expect(file.length).toBeGreaterThan(0);
    expect(image.length).toBeGreaterThan(0);
    expect(settled).toEqual([]);
    expect(sideMs).toBeLessThan(500);

    for (const outcome of await Promise.all(stalls))
      expect(outcome).toMatchObject({
        code: 'invalid_image',
        message: 'image_url did not resolve within 1 s',
      });
    expect(Math.min(...settled)).toBeGreaterThanOrEqual(950);
    expect(Math.max(...settled)).toBeLessThan(1_600);
    // Each fetch asked the silent server for both families.
    expect(silent.queries.filter((q) => q.name.startsWith('stall-')).length).toBeGreaterThanOrEqual(12);
  });
});
