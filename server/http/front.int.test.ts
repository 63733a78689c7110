import { describe, expect, it } from 'vitest';
import { type AppServer, shippedLimits } from '../../test/app-server';
import { appServerForTests } from '../../test/app-server-hooks';
import { fetchFrom, freshLoopbackClient } from '../../test/client-fetch';
import { availableBackends } from '../../test/database';
import { type RawAnswer, rawRequest } from '../../test/raw-http';
import { errorStatus, isErrorCode } from '../errors';

const [backend] = await availableBackends();

/** Every refusal of the front is quick and carries the JSON envelope with a known code. */
function expectEnvelope(answer: RawAnswer, status: number, code: string) {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(isErrorCode(body.error.code) && errorStatus[body.error.code]).toBe(status);
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(answer.ms).toBeLessThan(1_000);
}

const multipartHead = (length: number) =>
  'POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\n' +
  `Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: ${length}\r\n\r\n`;

describe(`the HTTP front answers every request (${backend})`, () => {
  let server: AppServer;
  let port: number;
  const raw = (request: Parameters<typeof rawRequest>[1], timeoutMs = 3_000) =>
    rawRequest(port, request, { timeoutMs, localAddress: freshLoopbackClient() });

  appServerForTests(
    backend,
    {
      ...shippedLimits,
      METRICS_TOKEN: '',
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_BODY_IDLE_TIMEOUT_MS: '700',
      HTTP_BODY_TIMEOUT_MS: '2000',
      UPLOADS_PER_CLIENT: '2',
    },
    (started) => {
      server = started.server;
      port = Number(new URL(server.baseUrl).port);
    },
    { hookTimeoutMs: 120_000 },
  );

  // First on a fresh process: a page render loads the Next bundle's copy of the server modules,
  // whose shared services (the image fetcher) then make errors the REST front must still know.
  it('a rejected image_url is 400 image_url_forbidden even after a page was served first', async () => {
    expect((await fetch(`${server.baseUrl}/`)).status).toBe(200);
    const form = new FormData();
    form.append('name', 'Order Test');
    form.append('symbol', 'ORD');
    form.append('initial_supply', (10n ** 27n).toString());
    form.append('image_url', 'https://127.0.0.1/logo.png');
    const answer = await fetch(`${server.baseUrl}/api/v1/token-metadata`, { method: 'POST', body: form });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: { code: 'image_url_forbidden' } });
  });

  it.each([
    ['a malformed Host', 'GET /api/v1/tokens HTTP/1.1\r\nHost: a b\r\n\r\n', 400, 'bad_request'],
    ['no Host', 'GET /api/v1/tokens HTTP/1.1\r\n\r\n', 400, 'bad_request'],
    ['TRACE', 'TRACE /api/v1/tokens HTTP/1.1\r\nHost: x\r\n\r\n', 405, 'method_not_allowed'],
    ['PUT', 'PUT /api/v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n', 405, 'method_not_allowed'],
    ['DELETE on a page', 'DELETE / HTTP/1.1\r\nHost: x\r\n\r\n', 405, 'method_not_allowed'],
    ['an unknown method', 'BREW /api/v1/tokens HTTP/1.1\r\nHost: x\r\n\r\n', 405, 'method_not_allowed'],
    ['CONNECT', 'CONNECT localhost:80 HTTP/1.1\r\nHost: localhost:80\r\n\r\n', 405, 'method_not_allowed'],
    [
      'an upgrade',
      'GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      400,
      'bad_request',
    ],
    ['garbage', 'hello there\r\n\r\n', 405, 'method_not_allowed'],
    ['a bad request line', 'GET /api/v1/tokens HTTP/9.9\r\nHost: x\r\n\r\n', 400, 'bad_request'],
    ['/objects/%ff', 'GET /objects/%ff HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
    ['/tokens/%ff (a page)', 'GET /tokens/%ff HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
    ['/api/v1/tokens/%ff', 'GET /api/v1/tokens/%ff HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
    ['a NUL in the path', 'GET /tokens/%00 HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
    ['an encoded slash', 'GET /objects%2F..%2Fapi/trpc/x HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
    ['a dot segment', 'GET /objects/../api/trpc/x HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
    [
      'an encoded dot segment',
      'GET /objects/%2e%2e/api/health HTTP/1.1\r\nHost: x\r\n\r\n',
      400,
      'bad_request',
    ],
    ['an unknown /api path', 'GET /api/nothing HTTP/1.1\r\nHost: x\r\n\r\n', 404, 'not_found'],
    ['/objects itself', 'GET /objects HTTP/1.1\r\nHost: x\r\n\r\n', 404, 'not_found'],
    ['an unknown /api/v1 path', 'GET /api/v1/nope HTTP/1.1\r\nHost: x\r\n\r\n', 404, 'not_found'],
    [
      'a Host that looks like a path',
      'GET /api/v1/nope HTTP/1.1\r\nHost: localhost/api/v1/tokens?\r\n\r\n',
      400,
      'bad_request',
    ],
    [
      'a body on a GET',
      'GET /api/v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello',
      413,
      'payload_too_large',
    ],
    [
      'a chunked body on an object',
      'GET /objects/a.png HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
      413,
      'payload_too_large',
    ],
    ['/api/metrics without METRICS_TOKEN', 'GET /api/metrics HTTP/1.1\r\nHost: x\r\n\r\n', 404, 'not_found'],
    [
      'oversized headers',
      `GET /api/v1/tokens HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
  ])('%s: a JSON envelope at once', async (_name, request, status, code) => {
    expectEnvelope(await raw(request), status, code);
  });

  it('routes on the path only: an absolute-form target or a foreign Host reaches the same route', async () => {
    const absolute = await raw(
      'GET http://evil.example/api/v1/tokens?limit=1 HTTP/1.1\r\nHost: evil.example\r\n\r\n',
    );
    expect(absolute.status).toBe(200);
    expect(JSON.parse(absolute.body)).toMatchObject({ items: [], next_cursor: null });
    expectEnvelope(
      await raw('GET http://evil.example/api/v1/nope HTTP/1.1\r\nHost: localhost\r\n\r\n'),
      404,
      'not_found',
    );
    // Repeated slashes are one path for the front and for Next alike.
    expect((await raw('GET //api//health HTTP/1.1\r\nHost: x\r\n\r\n')).status).toBe(200);
  });

  it('a body whose chunk framing breaks is answered 400 at once; garbage after a body still lets the request be answered', async () => {
    const broken = await raw(
      'POST /api/v1/token-metadata/d_AAAAAAAAAAAAAAAA/finalize HTTP/1.1\r\nHost: x\r\n' +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n',
    );
    expectEnvelope(broken, 400, 'bad_request');
    const piped = await raw(
      'POST /api/v1/token-metadata/d_AAAAAAAAAAAAAAAA/finalize HTTP/1.1\r\nHost: x\r\n' +
        'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}garbage that is no request\r\n\r\n',
    );
    expectEnvelope(piped, 400, 'invalid_parameter');
  });

  it('serves the icons and the web manifest of public/, linked from every page', async () => {
    const favicon = await fetch(`${server.baseUrl}/favicon.ico`);
    expect(favicon.status).toBe(200);
    expect(Buffer.from(await favicon.arrayBuffer()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
    for (const path of ['/apple-touch-icon.png', '/icon-192.png', '/icon-512.png']) {
      const icon = await fetch(`${server.baseUrl}${path}`);
      expect(icon.headers.get('content-type'), path).toBe('image/png');
    }
    const manifest = (await (await fetch(`${server.baseUrl}/manifest.webmanifest`)).json()) as {
      icons: unknown[];
    };
    expect(manifest.icons).toHaveLength(3);
    const page = await (await fetch(`${server.baseUrl}/`)).text();
    expect(page).toContain('href="/favicon.ico"');
    expect(page).toContain('href="/manifest.webmanifest"');
    expect(page).toContain('href="/apple-touch-icon.png"');
  });

  it('a tRPC batch spelled with %2C costs its calls and is refused past 10, like one spelled with commas', async () => {
    const address = freshLoopbackClient();
    const client = fetchFrom(address);
    const input = encodeURIComponent(
      JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i, {}]))),
    );
    const first = await client(
      `${server.baseUrl}/api/trpc/system.status?batch=1&input=${encodeURIComponent('{"0":{}}')}`,
    );
    const before = Number(/r=(\d+)/.exec(first.headers.get('ratelimit') ?? '')?.[1]);
    const names = Array.from({ length: 10 }, () => 'system.status').join('%2C');
    const encoded = await client(`${server.baseUrl}/api/trpc/${names}?batch=1&input=${input}`);
    expect(encoded.status).toBe(200);
    // Ten calls, not one (the bucket refills 20 a second meanwhile, so allow a token or two back).
    expect(
      before - Number(/r=(\d+)/.exec(encoded.headers.get('ratelimit') ?? '')?.[1]),
    ).toBeGreaterThanOrEqual(8);
    const eleven = Array.from({ length: 11 }, () => 'system.status').join('%2C');
    const refused = await raw(`GET /api/trpc/${eleven}?batch=1 HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toHaveLength(11);
  });

  it('trailing slashes are folded (no redirect echoing the target), long targets are 414, bad tRPC targets answer as tRPC', async () => {
    const trpcRoot = await raw('GET /api/trpc/?input=x HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(trpcRoot.status).toBe(404);
    expect(JSON.parse(trpcRoot.body)).toMatchObject({ error: { json: { data: { httpStatus: 404 } } } });
    expectEnvelope(await raw('GET /objects/ HTTP/1.1\r\nHost: x\r\n\r\n'), 404, 'not_found');
    const health = await raw('GET /api/health/ HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(health.status).toBe(200);
    expectEnvelope(
      await raw(`GET /tokens/x/?q=${'a'.repeat(9_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      414,
      'uri_too_long',
    );
    const undecodable = await raw('GET /api/trpc/%ED%A0%80,tokens.list?batch=1 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(undecodable.status).toBe(400);
    expect(JSON.parse(undecodable.body)).toMatchObject({ error: { json: { data: { httpStatus: 400 } } } });
  });

  it('OPTIONS names the allowed methods, for a path and for *', async () => {
    const star = await raw('OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(star.status).toBe(204);
    expect(star.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    const trpc = await raw('OPTIONS /api/trpc/tokens.list HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(trpc.status).toBe(204);
    expect(trpc.headers.allow).toBe('GET, OPTIONS');
  });

  it('a write method with a body on any read of /api/v1 is 405 with Allow before its body counts; POST routes still take theirs', async () => {
    // Every path the OpenAPI document lists, filled in: the document and the gate must agree.
    const document = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const reads = Object.entries(document.paths)
      .filter(([, operations]) => Object.keys(operations).join() === 'get')
      .map(([template]) => template.replace('{address}', `0x${'22'.repeat(20)}`));
    expect(reads).toContain(`/api/v1/tokens/0x${'22'.repeat(20)}/trades`);
    expect(reads).toContain('/api/v1/stream');
    for (const path of reads) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        // 20 MB declared and a few bytes sent: the answer may not wait for, or measure, the body.
        const answer = await raw(
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
            'Content-Length: 20000000\r\n\r\n{"side":"buy"',
        );
        expectEnvelope(answer, 405, 'method_not_allowed');
        expect(answer.headers.allow, `${method} ${path}`).toBe('GET, HEAD, OPTIONS');
      }
    }
    const options = await raw(
      `OPTIONS /api/v1/tokens/0x${'22'.repeat(20)}/trades HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
    // The writes: their own methods only, and their bodies reach them.
    const upload = await raw('OPTIONS /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(upload.headers.allow).toBe('POST, OPTIONS');
    const headOfWrite = await raw(
      'HEAD /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(headOfWrite.status).toBe(405);
    expect(headOfWrite.headers.allow).toBe('POST, OPTIONS');
    expectEnvelope(
      await raw(
        'POST /api/v1/token-metadata/d_AAAAAAAAAAAAAAAA/finalize HTTP/1.1\r\nHost: x\r\n' +
          'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      ),
      400,
      'invalid_parameter',
    );
    // An unknown path under /api/v1 is a 404 whatever the method, its body unread.
    expectEnvelope(
      await raw('POST /api/v1/tokens/0x22/nope HTTP/1.1\r\nHost: x\r\nContent-Length: 20000000\r\n\r\n{'),
      404,
      'not_found',
    );
  });

  it('tRPC: writes do not exist over HTTP, POST is 405 and batches past 10 calls are refused, all in tRPC shape', async () => {
    const trpcError = (answer: RawAnswer) => {
      const body = JSON.parse(answer.body) as unknown;
      const first = (Array.isArray(body) ? body[0] : body) as {
        error: { json: { data: { httpStatus: number } } };
      };
      return first.error.json.data;
    };
    const post = await raw(
      'POST /api/trpc/metadata.finalize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(post.status).toBe(405);
    expect(trpcError(post)).toMatchObject({ code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 });
    const input = encodeURIComponent(JSON.stringify({ json: { draft: 'd_AAAAAAAAAAAAAAAA', body: {} } }));
    const viaGet = await fetch(`${server.baseUrl}/api/trpc/metadata.finalize?input=${input}`);
    expect(viaGet.status).toBeGreaterThanOrEqual(400);
    expect(viaGet.status).toBeLessThan(500);
    const batch = Array.from({ length: 11 }, () => 'system.status').join(',');
    const tooMany = await raw(`GET /api/trpc/${batch}?batch=1 HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toContain('Batch call exceeds maximum size');
    expect(JSON.parse(tooMany.body)).toHaveLength(11);
  });

  it('If-None-Match compares weakly (RFC 9110): W/"tag" matches "tag"', async () => {
    const first = await fetch(`${server.baseUrl}/api/v1/tokens?limit=1`);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"/);
    for (const given of [etag, `W/${etag}`, `"other", W/${etag}`, '*']) {
      const again = await fetch(`${server.baseUrl}/api/v1/tokens?limit=1`, {
        headers: { 'if-none-match': given },
      });
      expect(again.status, given).toBe(304);
    }
    expect(
      (await fetch(`${server.baseUrl}/api/v1/tokens?limit=1`, { headers: { 'if-none-match': '"other"' } }))
        .status,
    ).toBe(200);
  });

  it('a head that never ends is cut with 408 at the header deadline', async () => {
    const answer = await raw([
      'GET /api/v1/tokens HTTP/1.1\r\nHost: x\r\n',
      400,
      'X-A: 1\r\n',
      400,
      'X-B: 2\r\n',
      3_000,
    ]);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'request_timeout' } });
    expect(answer.ms).toBeLessThan(2_500);
  });

  it('an upload that stops or drips is cut with a 408 envelope at its deadline', async () => {
    const silent = await raw([multipartHead(10_000)], 5_000);
    expect(silent.status).toBe(408);
    expect(JSON.parse(silent.body)).toMatchObject({ error: { code: 'request_timeout' } });
    expect(silent.ms).toBeLessThan(1_500);
    const drip: (string | number)[] = [
      multipartHead(10_000),
      '--XX\r\nContent-Disposition: form-data; name="name"\r\n\r\n',
    ];
    for (let i = 0; i < 40; i++) drip.push(200, 'a');
    const dripped = await raw(drip, 6_000);
    expect(dripped.status).toBe(408);
    expect(dripped.ms).toBeLessThan(3_000);
    expect(dripped.headers.connection).toBe('close');
  });

  it('caps concurrent uploads per client; a finished upload frees its slot', async () => {
    const address = freshLoopbackClient();
    const held = [0, 1].map(() =>
      rawRequest(port, [multipartHead(10_000), '--XX\r\n'], { localAddress: address, timeoutMs: 5_000 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const third = await rawRequest(port, multipartHead(10), { localAddress: address });
    expectEnvelope(third, 429, 'rate_limited');
    expect(third.headers['retry-after']).toBe('1');
    // Another client is not affected.
    const other = await fetchFrom(freshLoopbackClient())(`${server.baseUrl}/api/v1/token-metadata`, {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(other.status).toBe(415);
    for (const answer of await Promise.all(held)) expect(answer.status).toBe(408);
    const after = await fetchFrom(address)(`${server.baseUrl}/api/v1/token-metadata`, {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(after.status).toBe(415);
  });
});
