import fc from 'fast-check';
import type { Corpus } from './corpus';
import { addressText } from './identifiers';
import { hostileText } from './text';

/** A part of a multipart body as a hostile client may shape it. */
export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  bytes: Uint8Array;
}

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/** Frames parts with `boundary` the way RFC 7578 does (no validation: names go in verbatim). */
export function multipartBytes(parts: readonly MultipartPart[], boundary: string): Uint8Array {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.contentType ? `\r\nContent-Type: ${part.contentType}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`, 'utf8'));
    chunks.push(Buffer.from(part.bytes), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return new Uint8Array(Buffer.concat(chunks));
}

const TEXT_FIELDS = [
  'name',
  'symbol',
  'initial_supply',
  'description',
  'website_url',
  'x_url',
  'telegram_url',
  'discord_url',
  'creator',
];

/**
 * image_url values that never leave the machine: private, loopback and link-local literals,
 * other schemes, malformed URLs. A public host name would send the server to DNS, which this
 * fuzzer must not depend on.
 */
const imageUrl = fc.constantFrom(
  'https://127.0.0.1/logo.png',
  'https://10.0.0.1/a.png',
  'https://[::1]/a.png',
  'https://169.254.169.254/latest/meta-data',
  'https://192.168.1.1:8443/x.gif',
  'https://0.0.0.0/a.png',
  'https://[::ffff:127.0.0.1]/a.png',
  'https://2130706433/a.png',
  'https://localhost/a.png',
  'http://127.0.0.1/a.png',
  'ftp://127.0.0.1/a.png',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'data:image/png;base64,iVBORw0KGgo=',
  'https://',
  'https://user:pass@127.0.0.1/a.png',
  'not a url',
  '',
);

function fieldValue(name: string, corpus: Corpus): fc.Arbitrary<string> {
  const valid: Record<string, fc.Arbitrary<string>> = {
    name: fc.constantFrom('Fuzz Token', 'Ünïcödé Name', 'A', 'x'.repeat(64)),
    symbol: fc.constantFrom('FUZ', 'Z', 'S'.repeat(16), 'ÅB'),
    initial_supply: fc.oneof(
      fc.constantFrom(
        '1000000000000000000000',
        '1000000000000000000000000000000000',
        '0',
        '-1',
        '1e27',
        '01000000000000000000000000',
      ),
      fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
    ),
    description: fc.constantFrom(
      'A token.',
      'line one\nline two',
      'crlf\r\nline',
      'd'.repeat(1000),
      'd'.repeat(1001),
    ),
    creator: addressText(corpus),
  };
  const url = fc.constantFrom(
    'https://example.com',
    'http://example.com/x',
    'https://t.me/x',
    'ftp://x',
    'javascript:alert(1)',
    'https://',
    '//x',
  );
  return fc.oneof({ arbitrary: valid[name] ?? url, weight: 3 }, { arbitrary: hostileText, weight: 2 });
}

/** An image part: a valid small image, a broken or disguised one, or random bytes. */
function imagePart(corpus: Corpus): fc.Arbitrary<MultipartPart> {
  const image = fc.constantFrom(...corpus.images);
  const bytes = fc.oneof(
    { arbitrary: image.map((i) => i.bytes), weight: 4 },
    {
      arbitrary: fc.tuple(image, fc.nat()).map(([i, n]) => i.bytes.subarray(0, n % i.bytes.length)),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            '\x89PNG\r\n\x1a\n',
            'GIF89a',
            'RIFF\0\0\0\0WEBPVP8 ',
            '\xff\xd8\xff\xe0',
            '<svg',
            '%PDF-1.4',
          ),
          fc.uint8Array({ maxLength: 300 }),
        )
        .map(
          ([magic, rest]) => new Uint8Array(Buffer.concat([Buffer.from(magic, 'latin1'), Buffer.from(rest)])),
        ),
      weight: 2,
    },
    { arbitrary: fc.uint8Array({ maxLength: 2_000 }), weight: 1 },
  );
  return fc.record({
    name: fc.oneof(
      { arbitrary: fc.constant('image'), weight: 8 },
      { arbitrary: fc.constantFrom('logo', 'name', ''), weight: 1 },
    ),
    filename: fc.oneof(
      fc.constantFrom('logo.png', 'a.gif', 'x.svg', '../../x.png', '', 'ü.webp'),
      hostileText,
    ),
    contentType: fc.constantFrom(
      'image/png',
      'image/gif',
      'application/octet-stream',
      'text/html',
      'image/svg+xml',
    ),
    bytes,
  });
}

/** A text part: a known field (valid or hostile value) or an unknown one. */
function textPart(corpus: Corpus): fc.Arbitrary<MultipartPart> {
  const known = fc.constantFrom(...TEXT_FIELDS).chain((name) =>
    fc.record({
      name: fc.constant(name),
      bytes: fc.oneof(
        { arbitrary: fieldValue(name, corpus).map(utf8), weight: 8 },
        { arbitrary: fc.uint8Array({ minLength: 1, maxLength: 40 }), weight: 1 },
        { arbitrary: fc.constant(utf8('x'.repeat(5_000))), weight: 1 },
      ),
    }),
  );
  const imageUrlPart = imageUrl.map((url): MultipartPart => ({ name: 'image_url', bytes: utf8(url) }));
  const unknown = fc.record({
    name: hostileText.map((n) => n.replace(/["\r\n]/g, '')),
    bytes: hostileText.map(utf8),
  });
  return fc.oneof(
    { arbitrary: known, weight: 6 },
    { arbitrary: imageUrlPart, weight: 2 },
    { arbitrary: unknown, weight: 1 },
  );
}

const BOUNDARY = 'fuzzBoundary7MA4YWxk';

/** An upload intake accepts: the required fields, a valid image, optional fields with valid values. */
function validUpload(corpus: Corpus): fc.Arbitrary<{ headers: Record<string, string>; body: Uint8Array }> {
  const optional = fc.record(
    {
      description: fc.constantFrom('A token.', 'line one\nline two', 'Ünïcödé 🚀'),
      website_url: fc.constantFrom('https://example.com', 'http://example.org/x'),
      x_url: fc.constant('https://x.com/fuzz'),
      creator: fc.constantFrom(...corpus.creators),
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      name: fc.constantFrom('Fuzz Token', 'Ünïcödé Name', 'A', 'x'.repeat(64)),
      symbol: fc.constantFrom('FUZ', 'Z', 'S'.repeat(16)),
      supply: fc.bigInt({ min: 10n ** 21n, max: 10n ** 33n }),
      image: fc.constantFrom(...corpus.images),
      optional,
    })
    .map(({ name, symbol, supply, image, optional }) => ({
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: multipartBytes(
        [
          { name: 'name', bytes: utf8(name) },
          { name: 'symbol', bytes: utf8(symbol) },
          { name: 'initial_supply', bytes: utf8(supply.toString()) },
          ...Object.entries(optional).map(([field, value]) => ({ name: field, bytes: utf8(value) })),
          { name: 'image', filename: image.filename, contentType: image.type, bytes: image.bytes },
        ],
        BOUNDARY,
      ),
    }));
}

/** A multipart upload: valid, or with random fields and parts, sometimes broken framing. */
export function uploadBody(
  corpus: Corpus,
): fc.Arbitrary<{ headers: Record<string, string>; body: Uint8Array }> {
  return fc.oneof({ arbitrary: validUpload(corpus), weight: 1 }, { arbitrary: anyUpload(corpus), weight: 3 });
}

function anyUpload(corpus: Corpus): fc.Arbitrary<{ headers: Record<string, string>; body: Uint8Array }> {
  const valid = fc.constant<MultipartPart[]>([
    { name: 'name', bytes: utf8('Fuzz Valid') },
    { name: 'symbol', bytes: utf8('FZV') },
    { name: 'initial_supply', bytes: utf8('1000000000000000000000000000') },
  ]);
  const parts = fc
    .tuple(
      fc.oneof(valid, fc.constant<MultipartPart[]>([])),
      fc.array(textPart(corpus), { maxLength: 8 }),
      fc.array(imagePart(corpus), { maxLength: 2 }),
      fc.option(fc.array(textPart(corpus), { minLength: 16, maxLength: 20 }), { freq: 20 }),
    )
    .map(([base, text, images, flood]) => [...base, ...text, ...images, ...(flood ?? [])]);
  const boundary = fc.oneof(
    fc.constant(BOUNDARY),
    fc.string({ unit: fc.constantFrom(...'abcXYZ019-_'), minLength: 1, maxLength: 70 }),
  );
  return fc
    .record({
      parts,
      boundary,
      declared: fc.oneof(
        { arbitrary: fc.constant('same'), weight: 8 },
        { arbitrary: fc.constantFrom('none', 'other', 'mixed', 'text', 'json', 'quoted'), weight: 2 },
      ),
      cut: fc.option(fc.nat(), { freq: 8 }),
      garbage: fc.option(fc.uint8Array({ maxLength: 400 }), { freq: 12 }),
    })
    .map(({ parts, boundary, declared, cut, garbage }) => {
      let body = garbage ?? multipartBytes(parts, boundary);
      if (cut !== null && body.length > 0) body = body.subarray(0, cut % body.length);
      const type: Record<string, string> = {
        same: `multipart/form-data; boundary=${boundary}`,
        none: 'multipart/form-data',
        other: 'multipart/form-data; boundary=somethingElse',
        mixed: `multipart/mixed; boundary=${boundary}`,
        text: 'text/plain',
        json: 'application/json',
        quoted: `multipart/form-data; boundary="${boundary}"`,
      };
      return { headers: { 'content-type': type[declared] as string }, body };
    });
}
