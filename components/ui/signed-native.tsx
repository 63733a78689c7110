import { formatNative } from './format';

/** A signed native amount (a PnL): green when positive, red when negative, "–" when unknown. */
export function SignedNative({ value }: { value: bigint | null }) {
  if (value === null) return <span className="muted">–</span>;
  return (
    <span className={value > 0n ? 'up' : value < 0n ? 'down' : undefined} data-value={value.toString()}>
      {value > 0n ? '+' : ''}
      {formatNative(value)}
    </span>
  );
}
