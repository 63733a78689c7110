import { ImageResponse } from 'next/og';
import { formatChangeBps, formatNative } from '@/components/ui/format';
import { pageServices } from '@/server/handover';
import { isAddress } from '@/shared/address';
import type { TokenDetail } from '@/shared/api/tokens';
import { findToken } from './find-token';

export const alt = 'Token card: name, symbol, logo, price and 24 h change';
export const size = { width: 1200, height: 630 };
export const contentType = 'image/png';

type Props = { params: Promise<{ address: string }> };

const LOGO_SIDE = 200;

/**
 * The card a shared token link unfurls into, drawn once per token per read-model version (a new
 * block, a finalize, a moderation) and kept in memory (server/tokens/share-card.ts): unfurlers
 * and repeated requests get the drawn PNG. Unknown and hidden (moderated) tokens have no card.
 * `x-card-cache` says whether this request drew it (`miss`) or not (`hit`).
 */
export default async function TokenCardRoute({ params }: Props): Promise<Response> {
  const { address } = await params;
  const noCard = () => pageServices().errorResponse('not_found', 'no card: unknown or hidden token');
  if (!isAddress(address)) return noCard();
  const token = address.toLowerCase();
  const { card, outcome } = await pageServices().shareCard.get(token, () => drawCard(token));
  if (!card) return noCard();
  return new Response(new Uint8Array(card), {
    headers: {
      'content-type': 'image/png',
      'content-length': String(card.length),
      'cache-control': 'public, max-age=0, must-revalidate',
      'x-card-cache': outcome === 'rendered' ? 'miss' : 'hit',
    },
  });
}

/** The card as PNG bytes, or null for a token that is not launched or is hidden by moderation. */
async function drawCard(address: string): Promise<Buffer | null> {
  const token = await findToken(address);
  if (!token || token.excluded) return null;
  // An unreadable image is no logo; a database or object store failure is a 500, so that no card
  // without its logo is kept for the rest of this version.
  const logoPngBytes = await pageServices().shareCard.logo(token.metadata?.image_url, LOGO_SIDE);
  const logo = logoPngBytes ? `data:image/png;base64,${logoPngBytes.toString('base64')}` : null;
  const image = new ImageResponse(<TokenCard token={token} logo={logo} />, size);
  return Buffer.from(await image.arrayBuffer());
}

/**
 * The card (OpenGraph and Twitter): name, symbol, logo, price and 24 h change. Creator text is
 * drawn as text, never interpreted.
 */
function TokenCard({ token, logo }: { token: TokenDetail; logo: string | null }) {
  const change = token.metrics.price_change_24h_bps;
  return (
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
          <img src={logo} width={LOGO_SIDE} height={LOGO_SIDE} alt="" style={{ borderRadius: 32 }} />
        ) : (
          <div
            style={{
              width: LOGO_SIDE,
              height: LOGO_SIDE,
              borderRadius: 32,
              background: '#2d3a66',
              display: 'flex',
              alignItems: 'center',
              justifyContent: 'center',
              fontSize: 96,
            }}
          >
            {token.identity.symbol.slice(0, 2)}
          </div>
        )}
        <div style={{ display: 'flex', flexDirection: 'column', maxWidth: 800 }}>
          <div style={{ fontSize: 72, fontWeight: 700, lineHeight: 1.1 }}>
            {token.identity.name.slice(0, 40)}
          </div>
          <div style={{ fontSize: 44, color: '#9fb0e0' }}>{`$${token.identity.symbol.slice(0, 16)}`}</div>
        </div>
      </div>
      <div style={{ display: 'flex', alignItems: 'flex-end', justifyContent: 'space-between' }}>
        <div style={{ display: 'flex', flexDirection: 'column' }}>
          <div style={{ fontSize: 32, color: '#9fb0e0' }}>Price</div>
          <div style={{ fontSize: 64 }}>{formatNative(token.metrics.current_price)}</div>
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
    </div>
  );
}
