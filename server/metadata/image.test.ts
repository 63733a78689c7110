import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { LOGO_MAX_PIXELS, logoPng, MAX_IMAGE_BYTES, processImage, THUMBNAIL_SIZE } from './image';

const solid = (format: 'png' | 'jpeg' | 'webp' | 'gif', width = 32, height = 32) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 90 } } })
    [format]()
    .toBuffer();

const solidFrame = (background: string) =>
  sharp({ create: { width: 8, height: 8, channels: 3, background } })
    .png()
    .toBuffer();

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A well-formed PNG header claiming `width` × `height`, with a tiny IDAT: a decompression bomb's shape. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('image intake', () => {
  it.each(['png', 'jpeg', 'webp', 'gif'] as const)(
    'accepts %s by magic bytes and re-encodes it in kind',
    async (format) => {
      const image = await processImage(await solid(format));
      expect(image.contentType).toBe(`image/${format}`);
      expect(image.width).toBe(32);
      expect((await sharp(image.bytes).metadata()).format).toBe(format);
    },
  );

  it.each(['gif', 'webp'] as const)('keeps every frame of an animated %s', async (format) => {
    const frames = await Promise.all(['#f00', '#0f0', '#00f'].map((background) => solidFrame(background)));
    const animated = await sharp(frames, { join: { animated: true } })
      [format]()
      .toBuffer();
    const stored = await processImage(animated);
    expect(stored.frames).toBe(3);
    expect((await sharp(stored.bytes, { animated: true }).metadata()).pages).toBe(3);
  });

  it('strips EXIF (GPS included) from a JPEG', async () => {
    const withGps = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#123456' } })
      .jpeg()
      .withExif({
        IFD0: { Copyright: 'creator' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' },
      })
      .toBuffer();
    expect((await sharp(withGps).metadata()).exif).toBeDefined();
    const stored = await processImage(withGps);
    expect((await sharp(stored.bytes).metadata()).exif).toBeUndefined();
    expect(stored.bytes.includes(Buffer.from('GPS'))).toBe(false);
  });

  it('drops a ZIP appended to a PNG (polyglot)', async () => {
    const zip = Buffer.concat([
      Buffer.from([0x50, 0x4b, 0x03, 0x04]),
      Buffer.from('evil.html<script>alert(1)</script>'),
    ]);
    const stored = await processImage(Buffer.concat([await solid('png'), zip]));
    expect(stored.bytes.includes(Buffer.from([0x50, 0x4b, 0x03, 0x04]))).toBe(false);
    expect(stored.bytes.includes(Buffer.from('<script>'))).toBe(false);
  });

  it.each([
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
    ['HTML', Buffer.from('<!doctype html><html><body><img src=x onerror=alert(1)></body></html>')],
    ['text claiming to be a PNG', Buffer.from('definitely a png, trust me')],
    ['a PDF', Buffer.from('%PDF-1.7\n1 0 obj\n')],
    ['empty', Buffer.alloc(0)],
  ])('rejects %s as invalid_image', async (_name, bytes) => {
    await expect(processImage(bytes)).rejects.toMatchObject({ code: 'invalid_image', status: 400 });
  });

  it('rejects a truncated image', async () => {
    const png = await solid('png', 256, 256);
    await expect(processImage(png.subarray(0, Math.floor(png.length / 2)))).rejects.toMatchObject({
      code: 'invalid_image',
    });
  });

  it('rejects a 20000 × 20000 header without decoding it', async () => {
    await expect(processImage(pngHeader(20_000, 20_000))).rejects.toMatchObject({
      code: 'invalid_image',
      message: expect.stringMatching(/pixel limit/),
    });
  });

  it('stores a 256 px square PNG thumbnail of the first frame beside the image', async () => {
    const large = await sharp({
      create: { width: 4000, height: 3000, channels: 3, background: { r: 10, g: 200, b: 30 } },
    })
      .png()
      .toBuffer();
    const stored = await processImage(large);
    const thumbnail = await sharp(stored.thumbnail).metadata();
    expect([thumbnail.format, thumbnail.width, thumbnail.height]).toEqual([
      'png',
      THUMBNAIL_SIZE,
      THUMBNAIL_SIZE,
    ]);
    expect(stored.thumbnail.length).toBeLessThan(stored.bytes.length);

    const frames = await Promise.all(['#f00', '#0f0'].map((background) => solidFrame(background)));
    const animated = await processImage(
      await sharp(frames, { join: { animated: true } })
        .gif()
        .toBuffer(),
    );
    const first = await sharp(animated.thumbnail).metadata();
    expect([first.format, first.pages ?? 1]).toEqual(['png', 1]);
    // Small images are not enlarged: the card scales them as it always did.
    expect((await sharp((await processImage(await solid('webp'))).thumbnail).metadata()).width).toBe(32);
  });

  it('draws a logo only from an avatar-sized image: a thumbnail, never a megapixel original', async () => {
    const side = Math.sqrt(LOGO_MAX_PIXELS);
    const avatar = await sharp({ create: { width: side, height: side, channels: 3, background: '#ff8800' } })
      .png()
      .toBuffer();
    const logo = await logoPng(avatar, 200);
    expect(logo).not.toBeNull();
    const { width, height } = await sharp(logo as Buffer).metadata();
    expect([width, height]).toEqual([200, 200]);
    const original = await sharp({
      create: { width: side + 1, height: side, channels: 3, background: '#ff8800' },
    })
      .png()
      .toBuffer();
    expect(await logoPng(original, 200)).toBeNull();
    // A decompression bomb's header is refused unread, as at intake.
    expect(await logoPng(pngHeader(20_000, 20_000), 200)).toBeNull();
    expect(await logoPng(Buffer.from('not an image'), 200)).toBeNull();
  });

  it("rejects more than 5 MB, the spec's SI megabytes (5,000,000 bytes), before looking at it", async () => {
    expect(MAX_IMAGE_BYTES).toBe(5_000_000);
    await expect(processImage(Buffer.alloc(5_000_001))).rejects.toMatchObject({
      code: 'payload_too_large',
      status: 413,
    });
    // 5,000,000 bytes are within the limit: judged as an image (these zeros are none).
    await expect(processImage(Buffer.alloc(5_000_000))).rejects.toMatchObject({ code: 'invalid_image' });
  });
});
