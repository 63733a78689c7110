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

/** One multipart part: raw bytes on the wire, exactly as a client (or an attacker) sends them. */
interface Part {
  name: string;
  value: Buffer | string;
  /** The part's own Content-Type header, e.g. `text/plain; charset=utf-8`. */
  type?: string;
  filename?: string;
}

const BOUNDARY = 'launchdex-raw-boundary';

/** A multipart/form-data body built byte by byte, so invalid UTF-8 reaches the server untouched. */
function rawMultipart(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.type) head += `Content-Type: ${part.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const bytes = (...values: number[]) => Buffer.from(values);
const supply = (10n ** 27n).toString();

describe(`draft text rules on POST /api/v1/token-metadata, raw multipart bodies (${backend})`, () => {
  let server: AppServer;
  let image: Part;

  /** Posts the parts with a valid name, symbol, supply and image unless a part replaces them. */
  const post = async (parts: Part[]) => {
    const given = new Set(parts.map((part) => part.name));
    const defaults: Part[] = [
      { name: 'name', value: 'Text Rules' },
      { name: 'symbol', value: 'TXT' },
      { name: 'initial_supply', value: supply },
      image,
    ].filter((part) => !given.has(part.name));
    const response = await fetch(`${server.baseUrl}/api/v1/token-metadata`, {
      method: 'POST',
      body: new Uint8Array(rawMultipart([...parts, ...defaults])),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: (await response.json()) as Json,
    };
  };

  /** The rule of the error envelope (DESIGN.md section 7) for a refused draft field. */
  const expectRefused = (answer: Awaited<ReturnType<typeof post>>, fields: string[]) => {
    expect(answer.status).toBe(400);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body.error.code).toBe('invalid_parameter');
    expect(typeof answer.body.error.message).toBe('string');
    const refused = (answer.body.error.details as Json[]).map((detail) => detail.field);
    expect([...new Set(refused)].sort()).toEqual([...fields].sort());
    for (const detail of answer.body.error.details as Json[]) expect(typeof detail.message).toBe('string');
  };

  appServerForTests(backend, { RATE_LIMIT_UPLOADS_PER_MINUTE: '0' }, async (started) => {
    server = started.server;
    const png = await sharp({ create: { width: 12, height: 12, channels: 3, background: '#12ab34' } })
      .png()
      .toBuffer();
    image = { name: 'image', value: png, type: 'image/png', filename: 'logo.png' };
  });

  it('accepts UTF-8 sent as raw bytes, and keeps CRLF line breaks in a description', async () => {
    const answer = await post([
      { name: 'name', value: Buffer.from('Été 🚀', 'utf8') },
      { name: 'description', value: Buffer.from('first line\r\nsecond line\nשלום\u200f', 'utf8') },
    ]);
    expect(answer.status).toBe(201);
    expect(answer.body.name).toBe('Été 🚀');
    expect(answer.body.description).toBe('first line\r\nsecond line\nשלום\u200f');
  });

  it.each([
    ['0xff', 'name', bytes(0x41, 0xff, 0x42)],
    ['the overlong NUL 0xc0 0x80', 'name', bytes(0x41, 0xc0, 0x80)],
    ['an encoded surrogate 0xed 0xa0 0x80', 'symbol', bytes(0x53, 0xed, 0xa0, 0x80)],
    ['a truncated sequence 0xe2 0x82', 'description', bytes(0x61, 0xe2, 0x82)],
    ['a truncated 4-byte sequence at the end', 'name', bytes(0x41, 0xf0, 0x9f, 0x9a)],
    [
      'a stray continuation byte 0x80',
      'website_url',
      Buffer.concat([Buffer.from('https://a.example/'), bytes(0x80)]),
    ],
    ['0xfe in the supply', 'initial_supply', bytes(0x31, 0xfe)],
  ])('refuses %s in %s with 400 naming the field (not a silent U+FFFD)', async (_case, field, value) => {
    const answer = await post([{ name: field, value }]);
    expectRefused(answer, [field]);
    expect(answer.body.error.details[0].message).toContain('UTF-8');
  });

  it.each([
    ['charset=utf-8', 'text/plain; charset=utf-8'],
    ['charset=latin1', 'text/plain; charset=latin1'],
    ['charset=utf-16le', 'text/plain; charset=utf-16le'],
  ])('judges text as UTF-8 even when the part declares %s', async (_case, type) => {
    expectRefused(await post([{ name: 'name', value: bytes(0x41, 0xff, 0xfe, 0x42), type }]), ['name']);
  });

  it('names every field that is not UTF-8 in one answer', async () => {
    const answer = await post([
      { name: 'name', value: bytes(0xff) },
      { name: 'symbol', value: bytes(0xc0, 0x80) },
    ]);
    expectRefused(answer, ['name', 'symbol']);
    expect(answer.body.error.message).toContain('UTF-8');
  });

  it.each([
    ['an empty name', 'name', ''],
    ['a whitespace-only name', 'name', '   '],
    ['a name of no-break and ideographic spaces', 'name', '\u00a0\u3000'],
    ['a whitespace-only symbol', 'symbol', ' \u2003 '],
    ['a tab in a name', 'name', 'Text\tRules'],
    ['a newline in a symbol', 'symbol', 'T\nX'],
    ['a C1 control in a name', 'name', 'Text\u0085Rules'],
    ['DEL in a symbol', 'symbol', 'TX\u007f'],
    ['a zero-width space in a name', 'name', 'Text\u200bRules'],
    ['a zero-width joiner in a symbol', 'symbol', 'T\u200dX'],
    ['a word joiner in a name', 'name', 'Text\u2060Rules'],
    ['a byte order mark opening a name', 'name', '\ufeffText Rules'],
    ['a Hangul filler as a name', 'name', '\u3164'],
    ['a right-to-left override in a name', 'name', 'Text\u202eseluR'],
    ['a left-to-right embedding in a symbol', 'symbol', '\u202aTXT'],
    ['a right-to-left isolate in a name', 'name', 'Text\u2067Rules\u2069'],
    ['a right-to-left mark in a symbol', 'symbol', 'TXT\u200f'],
    ['an Arabic letter mark in a name', 'name', 'Text\u061cRules'],
    ['a tab in a description', 'description', 'a\tb'],
    ['a lone carriage return in a description', 'description', 'a\rb'],
    ['an escape sequence in a description', 'description', '\u001b[2J'],
    ['a right-to-left override in a description', 'description', 'invoice \u202efdp.exe'],
    ['a first-strong isolate in a description', 'description', 'a\u2068b'],
  ])('refuses %s with 400 naming %s', async (_case, field, value) => {
    expectRefused(await post([{ name: field, value: Buffer.from(value, 'utf8') }]), [field]);
  });

  it('keeps the byte limits on UTF-8 bytes: 64 bytes of name pass, 65 do not', async () => {
    expect((await post([{ name: 'name', value: 'é'.repeat(32) }])).status).toBe(201);
    expectRefused(await post([{ name: 'name', value: `${'é'.repeat(32)}x` }]), ['name']);
    expect((await post([{ name: 'symbol', value: '🚀🚀🚀🚀' }])).status).toBe(201);
    expectRefused(await post([{ name: 'symbol', value: '🚀🚀🚀🚀x' }]), ['symbol']);
  });

  it('reports the text rules of several fields together', async () => {
    expectRefused(
      await post([
        { name: 'name', value: ' ' },
        { name: 'symbol', value: 'T\u202eX' },
        { name: 'description', value: 'a\u0000b' },
      ]),
      ['description', 'name', 'symbol'],
    );
  });
});
