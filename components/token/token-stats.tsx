import { PriceChange } from '@/components/tokens/price-change';
import { formatBps, formatCount, formatNative } from '@/components/ui/format';
import { StatGrid } from '@/components/ui/stat-grid';
import type { TokenDetail } from '@/shared/api/tokens';

/** Price, FDV and the indexed 24 h window. */
export function TokenStats({ token }: { token: TokenDetail }) {
  const { metrics } = token;
  const stats: { label: string; value: React.ReactNode }[] = [
    { label: 'Price', value: formatNative(metrics.current_price) },
    { label: '24h change', value: <PriceChange bps={metrics.price_change_24h_bps} /> },
    { label: 'Market cap', value: formatNative(metrics.market_cap) },
    { label: 'FDV', value: formatNative(metrics.fully_diluted_value) },
    { label: 'Volume 24h', value: formatNative(metrics.volume_24h) },
    { label: 'Trades 24h', value: formatCount(metrics.trades_24h) },
    { label: 'Traders 24h', value: formatCount(metrics.traders_24h) },
    { label: 'Holders', value: formatCount(metrics.holders) },
  ];
  return <StatGrid label="Market statistics" stats={stats} />;
}

/**
 * Who holds the supply, from indexed balances: the ten largest holders and the creator, with the
 * curve, the pool and the burn address shown apart (they are not holders).
 */
export function TokenConcentration({ token }: { token: TokenDetail }) {
  const c = token.concentration;
  const stats: { label: string; value: React.ReactNode }[] = [
    { label: 'Top 10 holders', value: formatBps(c.top10_holders_bps) },
    { label: 'Creator', value: formatBps(c.creator_bps) },
    {
      label: token.curve.lifecycle === 'graduated' ? 'Pool' : 'Bonding curve',
      value: formatBps(token.curve.lifecycle === 'graduated' ? c.pool_bps : c.curve_bps),
    },
    { label: 'Burned', value: formatBps(c.burned_bps) },
  ];
  return <StatGrid label="Supply held by" stats={stats} />;
}
