import { PriceChange } from '@/components/tokens/price-change';
import { formatBps, formatCount, formatNative } from '@/components/ui/format';
import { StatGrid } from '@/components/ui/stat-grid';
import { traderLabelText } from '@/components/ui/trader-label';
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

/** A share of supply and how many wallets hold it: "12.3% · 5 wallets". */
function LabelledShare({
  bps,
  wallets,
  label,
}: {
  bps: number;
  wallets: number;
  label: 'sniper' | 'bundler' | 'creator_linked';
}) {
  return (
    <span data-field={label} data-bps={bps} data-wallets={wallets} title={traderLabelText[label].definition}>
      {formatBps(bps)}{' '}
      <span className="muted small">
        · {formatCount(wallets)} {wallets === 1 ? 'wallet' : 'wallets'}
      </span>
    </span>
  );
}

/**
 * The risk summary from trader labels (docs/api.md "Traders, PnL and labels"): the supply that
 * snipers, bundlers and creator-linked wallets hold now, how many there are, and how much of its
 * own buys the creator has sold.
 */
export function TokenRisk({ token }: { token: TokenDetail }) {
  const r = token.risk;
  const stats: { label: string; value: React.ReactNode }[] = [
    {
      label: 'Snipers',
      value: <LabelledShare label="sniper" bps={r.sniper_bps} wallets={r.sniper_wallets} />,
    },
    {
      label: 'Bundlers',
      value: <LabelledShare label="bundler" bps={r.bundler_bps} wallets={r.bundler_wallets} />,
    },
    {
      label: 'Creator-linked',
      value: (
        <LabelledShare label="creator_linked" bps={r.creator_linked_bps} wallets={r.creator_linked_wallets} />
      ),
    },
    {
      label: 'Creator sold',
      value: (
        <span data-field="creator_sold" data-bps={r.creator_sold_bps}>
          {formatBps(r.creator_sold_bps)}{' '}
          <span className="muted small">of its and its linked wallets' buys</span>
        </span>
      ),
    },
  ];
  return <StatGrid label="Supply held now by labelled traders" stats={stats} />;
}
