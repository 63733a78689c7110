import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { tokenLogo } from './token-logo';

describe('tokenLogo', () => {
  it('draws a 256×256 PNG the upload intake accepts, the same for the same seed', async () => {
    const first = await tokenLogo('FINCH');
    const meta = await sharp(first).metadata();
    expect(meta.format).toBe('png');
    expect([meta.width, meta.height]).toEqual([256, 256]);
    expect(first.byteLength).toBeLessThan(5 * 1024 * 1024);
    expect((await tokenLogo('FINCH')).equals(first)).toBe(true);
  });

  it('gives different seeds different pictures', async () => {
    const pictures = await Promise.all(['A', 'B', 'C', 'D'].map((seed) => tokenLogo(seed)));
    const distinct = new Set(pictures.map((png) => png.toString('base64')));
    expect(distinct.size).toBe(4);
  });
});
