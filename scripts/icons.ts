/**
 * `node --import tsx scripts/icons.ts`: draws the app's icons into public/ from one SVG (a rising
 * curve over a launch bar, in the accent colour of app/styles/base.css). The PNGs and favicon.ico are
 * committed; rerun after changing the drawing.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

const root = path.resolve(import.meta.dirname, '..');
const accent = '#3b5bdb';
const svg = (size: number) =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 64 64">
  <title>Launchdex</title>
  <rect width="64" height="64" rx="14" fill="${accent}"/>
  <path d="M12 48 C 26 46, 36 38, 50 14" stroke="#fff" stroke-width="6" fill="none" stroke-linecap="round"/>
  <circle cx="50" cy="14" r="5" fill="#fff"/>
  <rect x="12" y="52" width="40" height="4" rx="2" fill="#ffffff" fill-opacity="0.55"/>
</svg>`);

const png = (size: number) => sharp(svg(size)).png({ compressionLevel: 9 }).toBuffer();

/** An ICO holding one PNG image (every browser since 2007 reads PNG-in-ICO). */
function ico(image: Buffer, size: number): Buffer {
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size >= 256 ? 0 : size, 6);
  header.writeUInt8(size >= 256 ? 0 : size, 7);
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(6 + 16, 18);
  return Buffer.concat([header, image]);
}

const out = (name: string, bytes: Buffer | string) => writeFileSync(path.join(root, 'public', name), bytes);
out('favicon.ico', ico(await png(32), 32));
out('icon.svg', svg(64));
out('apple-touch-icon.png', await png(180));
out('icon-192.png', await png(192));
out('icon-512.png', await png(512));
out(
  'manifest.webmanifest',
  `${JSON.stringify(
    {
      name: 'Launchdex',
      short_name: 'Launchdex',
      description: 'Open explorer and API for token launches.',
      start_url: '/',
      display: 'standalone',
      background_color: '#ffffff',
      theme_color: accent,
      icons: [
        { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
        { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
        { src: '/icon.svg', sizes: 'any', type: 'image/svg+xml' },
      ],
    },
    null,
    2,
  )}\n`,
);
console.log('▶ icons written to public/');
