import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../test/tls';
import { createImageFetcher } from './fetch-image';
import { MAX_IMAGE_BYTES } from './image';
import type { Resolver } from './ssrf';

/** The one public address the tests resolve names to; routed to the loopback server, never dialed. */
const PUBLIC = '93.184.216.34';

let server: Server;
let port: number;
let ca: string;
let png: Buffer;
const dialed: string[] = [];

beforeAll(async () => {
  const tls = selfSignedCertificate({ dns: ['images.test', 'rebind.test', 'hop.test'], ip: [PUBLIC] });
  ca = tls.cert;
  png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#00ff00' } })
    .png()
    .toBuffer();
  server = createServer(tls, (request, response) => {
    const redirect = (location: string) => response.writeHead(302, { location }).end();
    switch (request.url) {
      case '/ok.png':
        return response.writeHead(200, { 'content-type': 'image/png' }).end(png);
      case '/redirect-ok':
        return redirect('https://hop.test/ok.png');
      case '/redirect-private':
        return redirect('https://10.0.0.1/ok.png');
      case '/redirect-metadata':
        return redirect(`https://169.254.169.254/latest/meta-data/`);
      case '/redirect-http':
        return redirect('http://images.test/ok.png');
      case '/redirect-loop':
        return redirect('https://images.test/redirect-loop');
      case '/big':
        return response
          .writeHead(200, { 'content-type': 'image/png' })
          .end(Buffer.alloc(MAX_IMAGE_BYTES + 1));
      case '/big-chunked': {
        response.writeHead(200, { 'content-type': 'image/png' });
        let sent = 0;
        const push = () => {
          while (sent <= MAX_IMAGE_BYTES + 65536) {
            sent += 65536;
            if (!response.write(Buffer.alloc(65536))) return void response.once('drain', push);
          }
          response.end();
        };
        return push();
      }
      case '/slow': {
        response.writeHead(200, { 'content-type': 'image/png' });
        const timer = setInterval(() => response.write(Buffer.alloc(1)), 100);
        response.on('close', () => clearInterval(timer));
        return;
      }
      default:
        return response.writeHead(404).end('no');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

function fetcherWith(resolver: Resolver, timeoutMs = 3_000) {
  return createImageFetcher({
    resolver,
    ca,
    timeoutMs,
    // Every connection goes to the loopback test server; anything else fails the test loudly.
    route: (pinned) => {
      dialed.push(pinned.address);
      if (pinned.address !== PUBLIC) throw new Error(`test attempted to connect to ${pinned.address}`);
      return { host: '127.0.0.1', port };
    },
  });
}

const publicNames: Resolver = async (hostname) => {
  if (['images.test', 'hop.test'].includes(hostname)) return [{ address: PUBLIC, family: 4 }];
  if (hostname === 'private.test') return [{ address: '192.168.1.1', family: 4 }];
  if (hostname === 'mixed.test')
    return [
      { address: PUBLIC, family: 4 },
      { address: 'fd00::1', family: 6 },
    ];
  throw new Error('NXDOMAIN');
};

describe('image_url fetcher against loopback HTTPS servers', () => {
  it('fetches a public https image through the pinned address', async () => {
    dialed.length = 0;
    expect(await fetcherWith(publicNames)('https://images.test/ok.png')).toEqual(png);
    expect(dialed).toEqual([PUBLIC]);
  });

  it('follows a redirect after checking the new target again', async () => {
    expect(await fetcherWith(publicNames)('https://images.test/redirect-ok')).toEqual(png);
  });

  it.each([
    ['a name resolving to a private address', 'https://private.test/ok.png'],
    ['mixed A/AAAA answers with one private', 'https://mixed.test/ok.png'],
    ['a resolver failure (fails closed)', 'https://nxdomain.test/ok.png'],
    ['a redirect from public to private', 'https://images.test/redirect-private'],
    ['a redirect to the cloud metadata address', 'https://images.test/redirect-metadata'],
    ['a redirect from https to http', 'https://images.test/redirect-http'],
    ['too many redirects', 'https://images.test/redirect-loop'],
  ])('refuses %s with image_url_forbidden', async (_case, url) => {
    dialed.length = 0;
    await expect(fetcherWith(publicNames)(url)).rejects.toMatchObject({ code: 'image_url_forbidden' });
    expect(dialed.every((address) => address === PUBLIC)).toBe(true);
  });

  it('resolves once per hop and connects only to that answer (DNS rebinding)', async () => {
    let lookups = 0;
    const rebinding: Resolver = async () => {
      lookups++;
      return lookups === 1 ? [{ address: PUBLIC, family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    };
    dialed.length = 0;
    expect(await fetcherWith(rebinding)('https://rebind.test/ok.png')).toEqual(png);
    expect(lookups).toBe(1);
    expect(dialed).toEqual([PUBLIC]);
  });

  it('caps the size: 5 MB + 1 declared or streamed is payload_too_large', async () => {
    await expect(fetcherWith(publicNames)('https://images.test/big')).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    await expect(fetcherWith(publicNames)('https://images.test/big-chunked')).rejects.toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('caps the time: a slow drip is cut off', async () => {
    await expect(fetcherWith(publicNames, 1_000)('https://images.test/slow')).rejects.toMatchObject({
      code: 'invalid_image',
      message: expect.stringMatching(/within/),
    });
  });

  it('caps the time of DNS too: a resolver that never answers is cut off at the one deadline', async () => {
    let asked = 0;
    const silent: Resolver = () => {
      asked++;
      return new Promise(() => {});
    };
    dialed.length = 0;
    const started = performance.now();
    await expect(fetcherWith(silent, 500)('https://images.test/ok.png')).rejects.toMatchObject({
      code: 'invalid_image',
      message: expect.stringMatching(/within 0\.5 s/),
    });
    const elapsed = performance.now() - started;
    expect(asked).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1_500);
    expect(dialed).toEqual([]);
  });

  it('counts DNS against the deadline already spent: a hop after a slow first hop gets only what is left', async () => {
    // The first lookup takes most of the budget and answers; the redirect's lookup never answers.
    // The whole fetch still ends at the one deadline, not a fresh one per hop or per lookup.
    const slowThenSilent: Resolver = (hostname) =>
      hostname === 'images.test'
        ? new Promise((resolve) => setTimeout(() => resolve([{ address: PUBLIC, family: 4 }]), 600))
        : new Promise(() => {});
    const started = performance.now();
    await expect(fetcherWith(slowThenSilent, 1_000)('https://images.test/redirect-ok')).rejects.toMatchObject(
      {
        code: 'invalid_image',
        message: expect.stringMatching(/within 1 s/),
      },
    );
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('still answers a resolver that fails fast as image_url_forbidden, not as a timeout', async () => {
    const started = performance.now();
    await expect(fetcherWith(publicNames, 5_000)('https://nxdomain.test/ok.png')).rejects.toMatchObject({
      code: 'image_url_forbidden',
    });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('reports an HTTP error status as invalid_image', async () => {
    await expect(fetcherWith(publicNames)('https://images.test/missing.png')).rejects.toMatchObject({
      code: 'invalid_image',
      message: expect.stringMatching(/404/),
    });
  });
});
