import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { AppServer } from '../../test/app-server';
import { appServerForTests } from '../../test/app-server-hooks';
import { availableBackends } from '../../test/database';

const [backend] = await availableBackends();

interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  [key: string]: any;
}

const png = (width = 24, height = 24) =>
  sharp({ create: { width, height, channels: 3, background: '#3b5bdb' } })
    .png()
    .toBuffer();
const validFields = { name: 'Upload Test', symbol: 'UPL', initial_supply: (10n ** 27n).toString() };

function form(
  fields: Record<string, string>,
  files: { name: string; bytes: Buffer; type?: string; filename?: string }[] = [],
) {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.append(key, value);
  for (const file of files)
    data.append(
      file.name,
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'image/png' }),
      file.filename ?? 'image.png',
    );
  return data;
}

describe(`POST /api/v1/token-metadata and /objects (${backend})`, () => {
  let server: AppServer;
  const post = async (body: BodyInit, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.baseUrl}/api/v1/token-metadata`, {
      method: 'POST',
      body,
      headers,
      duplex: 'half',
    } as RequestInit);
    return { status: response.status, body: (await response.json()) as Json, headers: response.headers };
  };

  // Limits have their own test (rate-limit.int.test.ts); this one posts dozens of uploads.
  appServerForTests(backend, { RATE_LIMIT_UPLOADS_PER_MINUTE: '0' }, (started) => {
    server = started.server;
  });

  it('creates a draft: 201 with id, metadata_hash and an immutable, content-addressed image', async () => {
    const { status, body } = await post(
      form(
        {
          ...validFields,
          description: 'Ünïcode ok',
          website_url: 'https://example.org',
          creator: '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        },
        [{ name: 'image', bytes: await png() }],
      ),
    );
    expect(status).toBe(201);
    expect(body.draft_id).toMatch(/^d_/);
    expect(body.metadata_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(body.image_url).toMatch(/^\/objects\/[0-9a-f]{64}\.png$/);
    expect(body).toMatchObject({
      name: 'Upload Test',
      symbol: 'UPL',
      initial_supply: validFields.initial_supply,
      creator: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      x_url: null,
    });
    const image = await fetch(`${server.baseUrl}${body.image_url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = image.headers.get('etag') as string;
    expect(
      (await fetch(`${server.baseUrl}${body.image_url}`, { headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
    expect((await fetch(`${server.baseUrl}${body.image_url}`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/objects/${'0'.repeat(64)}.png`)).status).toBe(404);
    // Traversal never reaches a file: the HTTP front refuses dot segments (400), else no such key (404).
    expect([400, 404]).toContain((await fetch(`${server.baseUrl}/objects/..%2F..%2Fpackage.json`)).status);
    expect((await fetch(`${server.baseUrl}/objects/a/../../package.json`)).status).not.toBe(200);
  });

  it('the same content twice gives the same metadata_hash and the same object', async () => {
    const bytes = await png(30, 30);
    const a = await post(form(validFields, [{ name: 'image', bytes }]));
    const b = await post(form(validFields, [{ name: 'image', bytes }]));
    expect(a.body.metadata_hash).toBe(b.body.metadata_hash);
    expect(a.body.image_url).toBe(b.body.image_url);
    expect(a.body.draft_id).not.toBe(b.body.draft_id);
  });

  it.each([
    ['name of 65 bytes (33 two-byte characters)', { name: 'é'.repeat(33) }],
    ['empty name', { name: '' }],
    ['name with a newline', { name: 'a\nb' }],
    ['symbol of 17 bytes', { symbol: 'S'.repeat(17) }],
    ['description of 1001 bytes', { description: 'x'.repeat(1001) }],
    ['initial_supply abc', { initial_supply: 'abc' }],
    ['initial_supply 0', { initial_supply: '0' }],
    ['initial_supply 1e27', { initial_supply: '1e27' }],
    ['initial_supply below the contract minimum', { initial_supply: (10n ** 21n - 1n).toString() }],
    ['initial_supply above the contract maximum', { initial_supply: (10n ** 33n + 1n).toString() }],
    ['a javascript: link', { website_url: 'javascript:alert(1)' }],
    ['a data: link', { x_url: 'data:text/html,<script>alert(1)</script>' }],
    ['a link with credentials', { telegram_url: 'https://user:pw@t.me/x' }],
  ])('rejects %s with 400', async (_name, override) => {
    const { status, body } = await post(
      form({ ...validFields, ...override }, [{ name: 'image', bytes: await png() }]),
    );
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_parameter');
  });

  it('rejects a malformed creator as invalid_address and missing required fields', async () => {
    expect(
      (await post(form({ ...validFields, creator: '0x123' }, [{ name: 'image', bytes: await png() }]))).body
        .error.code,
    ).toBe('invalid_address');
    const { status, body } = await post(
      form({ symbol: 'X', initial_supply: validFields.initial_supply }, [
        { name: 'image', bytes: await png() },
      ]),
    );
    expect(status).toBe(400);
    expect(body.error.details.map((d: Json) => d.field)).toContain('name');
  });

  it('needs exactly one of image and image_url', async () => {
    const neither = await post(form(validFields));
    expect(neither.status).toBe(400);
    const both = await post(
      form({ ...validFields, image_url: 'https://93.184.216.34/a.png' }, [
        { name: 'image', bytes: await png() },
      ]),
    );
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain('exactly one');
  });

  it('rejects two files, a file under another name, and too many fields', async () => {
    const bytes = await png();
    expect(
      (
        await post(
          form(validFields, [
            { name: 'image', bytes },
            { name: 'image', bytes },
          ]),
        )
      ).status,
    ).toBe(400);
    expect((await post(form(validFields, [{ name: 'avatar', bytes }]))).status).toBe(400);
    const many: Record<string, string> = { ...validFields };
    for (let i = 0; i < 20; i++) many[`extra${i}`] = 'x';
    expect((await post(form(many, [{ name: 'image', bytes }]))).status).toBe(400);
  });

  it('cuts off an oversized field (413)', async () => {
    const { status, body } = await post(
      form({ ...validFields, description: 'x'.repeat(10_000) }, [{ name: 'image', bytes: await png() }]),
    );
    expect(status).toBe(413);
    expect(body.error.code).toBe('payload_too_large');
  });

  it('delivers every early 413 intact: the rest of the body is drained, not reset', async () => {
    // The oversized field comes first, so the server answers while ~1 MB is still on the wire;
    // closing the socket on unread bytes would reset the connection and lose the answer.
    const body = form({ description: 'x'.repeat(10_000), ...validFields }, [
      { name: 'image', bytes: Buffer.concat([await png(), Buffer.alloc(1024 * 1024)]) },
    ]);
    for (let attempt = 0; attempt < 30; attempt++) {
      const { status, body: answer } = await post(body);
      expect(status).toBe(413);
      expect(answer.error.code).toBe('payload_too_large');
    }
  });

  it('rejects an image of 5 MB + 1 byte (5,000,001), with Content-Length and streamed without one', async () => {
    const big = Buffer.concat([await png(), Buffer.alloc(5_000_001 - (await png()).length)]);
    const withLength = await post(form(validFields, [{ name: 'image', bytes: big }]));
    expect(withLength.status).toBe(413);
    // Streamed: no Content-Length, 50 MB offered; the server stops reading at its cap.
    const boundary = 'launchdexboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nStream\r\n--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent > 50 * 1024 * 1024) return controller.close();
        sent += 256 * 1024;
        controller.enqueue(new Uint8Array(256 * 1024));
      },
    });
    const residentBefore = server.residentBytes();
    const streamed = await post(stream, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(50 * 1024 * 1024);
    // Memory does not follow the body: the server kept at most the 5 MB cap of it.
    expect(server.residentBytes() - residentBefore).toBeLessThan(24 * 1024 * 1024);
  });

  it('judges images by content: fake PNG, SVG, HTML, truncated and a 20000×20000 header are 400 invalid_image', async () => {
    const real = await png(200, 200);
    const cases: [string, Buffer][] = [
      ['text named .png', Buffer.from('not an image at all')],
      ['svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
      ['html', Buffer.from('<!doctype html><script>alert(1)</script>')],
      ['truncated png', real.subarray(0, Math.floor(real.length / 2))],
    ];
    for (const [name, bytes] of cases) {
      const { status, body } = await post(form(validFields, [{ name: 'image', bytes, type: 'image/png' }]));
      expect(status, name).toBe(400);
      expect(body.error.code, name).toBe('invalid_image');
    }
  });

  it('stores a PNG+ZIP polyglot as a plain PNG and strips EXIF GPS from a JPEG', async () => {
    const polyglot = Buffer.concat([
      await png(),
      Buffer.from([0x50, 0x4b, 0x03, 0x04]),
      Buffer.from('payload.html'),
    ]);
    const stored = await post(form(validFields, [{ name: 'image', bytes: polyglot }]));
    expect(stored.status).toBe(201);
    const bytes = Buffer.from(await (await fetch(`${server.baseUrl}${stored.body.image_url}`)).arrayBuffer());
    expect(bytes.includes(Buffer.from([0x50, 0x4b, 0x03, 0x04]))).toBe(false);
    const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } })
      .jpeg()
      .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
      .toBuffer();
    const photo = await post(
      form(validFields, [{ name: 'image', bytes: jpeg, type: 'image/jpeg', filename: 'photo.jpg' }]),
    );
    expect(photo.status).toBe(201);
    expect(photo.body.image_url).toMatch(/\.jpg$/);
    const storedJpeg = Buffer.from(
      await (await fetch(`${server.baseUrl}${photo.body.image_url}`)).arrayBuffer(),
    );
    expect((await sharp(storedJpeg).metadata()).exif).toBeUndefined();
  });

  it('refuses image_url targets that are not public https before connecting', async () => {
    for (const url of [
      'http://93.184.216.34/a.png',
      'https://127.0.0.1/a.png',
      'https://[::1]/a.png',
      'https://169.254.169.254/latest',
      'file:///etc/passwd',
      'https://user:pw@93.184.216.34/a.png',
    ]) {
      const { status, body } = await post(form({ ...validFields, image_url: url }));
      expect(status, url).toBe(400);
      expect(body.error.code, url).toBe('image_url_forbidden');
    }
  });

  it('answers 415 to anything but multipart/form-data', async () => {
    const { status, body } = await post(JSON.stringify(validFields), { 'content-type': 'application/json' });
    expect(status).toBe(415);
    expect(body.error.code).toBe('unsupported_media_type');
  });
});
