import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { TokenView } from '@/components/token/token-view';
import { formatBps, formatNative } from '@/components/ui/format';
import { pageServices } from '@/server/handover';
import type { TokenDetail } from '@/shared/api/tokens';
import { findToken } from './find-token';

async function loadToken(address: string): Promise<TokenDetail> {
  return (await findToken(address)) ?? notFound();
}

type Props = { params: Promise<{ address: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const token = await loadToken((await params).address);
  const title = `${token.identity.name} (${token.identity.symbol})`;
  const description = `${token.identity.symbol} on Launchdex: price ${formatNative(token.metrics.current_price)}, market cap ${formatNative(token.metrics.market_cap)}, ${token.metrics.holders} holders${token.curve.lifecycle === 'graduated' ? ', trading on Uniswap V3' : `, ${formatBps(token.curve.progress_bps)} to graduation`}.`;
  // Unfurlers and shared caches keep these absolute URLs, so their origin is the configured one
  // (PUBLIC_BASE_URL), never the Host or X-Forwarded-Host of the request, which a client chooses.
  const canonical = `/tokens/${token.identity.address}`;
  return {
    title,
    description,
    metadataBase: new URL(pageServices().publicBaseUrl),
    alternates: { canonical },
    // The card image comes from opengraph-image.tsx beside this page.
    openGraph: { title, description, type: 'website', siteName: 'Launchdex', url: canonical },
    twitter: { card: 'summary_large_image', title, description },
  };
}

export default async function TokenPage({ params }: Props) {
  return <TokenView initial={await loadToken((await params).address)} />;
}
