import sharp from 'sharp';
import { hexToBytes, keccak256, toHex } from 'viem';

/**
 * A 256×256 PNG logo drawn from `seed`: a two-hue gradient with a few soft shapes. Shapes only,
 * no text, so it renders the same on a machine without fonts.
 * @example const png = await tokenLogo('MOON:0x…'); // same seed, same bytes
 */
export async function tokenLogo(seed: string): Promise<Buffer> {
  const bytes = hexToBytes(keccak256(toHex(seed)));
  const byte = (i: number) => bytes[i % bytes.length] as number;
  const hue = Math.round((byte(0) / 255) * 360);
  const second = (hue + 40 + Math.round((byte(1) / 255) * 140)) % 360;
  const shapes: string[] = [];
  for (let i = 0; i < 3; i++) {
    const x = 40 + Math.round((byte(2 + i * 4) / 255) * 176);
    const y = 40 + Math.round((byte(3 + i * 4) / 255) * 176);
    const size = 28 + Math.round((byte(4 + i * 4) / 255) * 52);
    const opacity = (0.35 + (byte(5 + i * 4) / 255) * 0.5).toFixed(2);
    shapes.push(
      byte(6 + i) % 2 === 0
        ? `<circle cx="${x}" cy="${y}" r="${size}" fill="#fff" fill-opacity="${opacity}"/>`
        : `<rect x="${x - size}" y="${y - size}" width="${size * 2}" height="${size * 2}" rx="${Math.round(size / 3)}" transform="rotate(${byte(9 + i) % 90} ${x} ${y})" fill="#fff" fill-opacity="${opacity}"/>`,
    );
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="hsl(${hue} 70% 55%)"/><stop offset="1" stop-color="hsl(${second} 65% 30%)"/>
  </linearGradient></defs>
  <rect width="256" height="256" fill="url(#g)"/>${shapes.join('')}
</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
