import { ImageResponse } from 'next/og';
import sharp from 'sharp';
import { formatChangeBps, formatNative } from '@/components/ui/format';
import { getConfig } from '@/server/config';
import { getObjectStore } from '@/server/objects/store';
import { findToken } from './find-token';

export const alt = 'Token card: name, symbol, logo, price and 24 h change';
export const size = { width: 1200, height: 630 };
export const contentType = 'image/png';

type Props = { params: Promise<{ address: string }> };

/** The bound logo as a PNG data URI (the card renderer reads PNG, not WebP or animation). */
async function logoDataUri(imageUrl: string | undefined): Promise<string | null> {
  const key = imageUrl?.replace(/^\/objects\//, '');
  if (!key) return null;
  const stored = await (await getObjectStore(getConfig().objects)).get(key);
  if (!stored?.body) return null;
  const png = await sharp(stored.body, { animated: false })
    .resize(200, 200, { fit: 'cover' })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

/**
 * The card a shared token link unfurls into (OpenGraph and Twitter): name, symbol, logo, price
 * and 24 h change. Creator text is drawn as text, never interpreted.
 */
export default async function TokenCard({ params }: Props) {
  const token = await findToken((await params).address);
  const logo = token ? await logoDataUri(token.metadata?.image_url).catch(() => null) : null;
  const change = token?.metrics.price_change_24h_bps ?? null;
  return new ImageResponse(
    <div
      style={{
        width: '100%',
        height: '100%',
        display: 'flex',
        flexDirection: 'column',
        justifyContent: 'space-between',
        padding: 64,
        background: 'linear-gradient(135deg, #0b1020 0%, #16213e 100%)',
        color: '#f5f7ff',
        fontSize: 40,
      }}
    >
      <div style={{ display: 'flex', alignItems: 'center', gap: 40 }}>
        {logo ? (
          // biome-ignore lint/performance/noImgElement: the card renderer draws plain img elements
          <img src={logo} width={200} height={200} alt="" style={{ borderRadius: 32 }} />
        ) : (
          <div
            style={{
              width: 200,
              height: 200,
              borderRadius: 32,
              background: '#2d3a66',
              display: 'flex',
              alignItems: 'center',
              justifyContent: 'center',
              fontSize: 96,
            }}
          >
            {(token?.identity.symbol ?? '?').slice(0, 2)}
          </div>
        )}
        <div style={{ display: 'flex', flexDirection: 'column', maxWidth: 800 }}>
          <div style={{ fontSize: 72, fontWeight: 700, lineHeight: 1.1 }}>
            {token ? token.identity.name.slice(0, 40) : 'Unknown token'}
          </div>
          <div style={{ fontSize: 44, color: '#9fb0e0' }}>
            {token ? `$${token.identity.symbol.slice(0, 16)}` : ''}
          </div>
        </div>
      </div>
      <div style={{ display: 'flex', alignItems: 'flex-end', justifyContent: 'space-between' }}>
        <div style={{ display: 'flex', flexDirection: 'column' }}>
          <div style={{ fontSize: 32, color: '#9fb0e0' }}>Price</div>
          <div style={{ fontSize: 64 }}>{token ? formatNative(token.metrics.current_price) : '—'}</div>
        </div>
        <div style={{ display: 'flex', flexDirection: 'column', alignItems: 'flex-end' }}>
          <div style={{ fontSize: 32, color: '#9fb0e0' }}>24h</div>
          <div
            style={{ fontSize: 64, color: change === null ? '#f5f7ff' : change >= 0 ? '#3ddc97' : '#ff6b6b' }}
          >
            {change === null ? '—' : formatChangeBps(change)}
          </div>
        </div>
        <div style={{ fontSize: 36, color: '#9fb0e0' }}>Launchdex</div>
      </div>
    </div>,
    size,
  );
}
