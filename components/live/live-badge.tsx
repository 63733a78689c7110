import type { LiveStatus } from './use-live-stream';

/** Whether the page is following the index, and how far the index has got. */
export function LiveBadge({ status, block }: { status: LiveStatus; block: number | null }) {
  const label = status === 'live' ? 'Live' : status === 'connecting' ? 'Connecting…' : 'Offline';
  return (
    <span className={`live-badge live-${status}`} data-status={status}>
      <span className="live-dot" aria-hidden="true" />
      {label}
      {block !== null ? <span className="muted"> · block #{block}</span> : null}
    </span>
  );
}
