import { formatBps } from './format';

/** Graduation progress of a bonding curve, 0–10000 basis points. */
export function ProgressBar({ bps, label }: { bps: number; label: string }) {
  return (
    <span
      className="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(bps / 100)}
      aria-valuetext={formatBps(bps)}
    >
      <span className="progress-fill" style={{ width: `${Math.min(100, bps / 100)}%` }} />
    </span>
  );
}
