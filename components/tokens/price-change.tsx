import { formatChangeBps } from '@/components/ui/format';

/** The 24 h price change; null (no price a day ago nor at launch) is shown as a dash. */
export function PriceChange({ bps }: { bps: number | null }) {
  if (bps === null) return <span className="muted">–</span>;
  return <span className={bps > 0 ? 'up' : bps < 0 ? 'down' : 'muted'}>{formatChangeBps(bps)}</span>;
}
