import { AddressLink } from '@/components/ui/address-link';
import { ExternalLink } from '@/components/ui/external-link';
import { formatBps, shortAddress } from '@/components/ui/format';
import { LifecycleBadge } from '@/components/ui/lifecycle-badge';
import { ProgressBar } from '@/components/ui/progress-bar';
import { RelativeTime } from '@/components/ui/relative-time';
import { TokenAvatar } from '@/components/ui/token-avatar';
import { StarButton } from '@/components/watchlist/star-button';
import type { TokenDetail } from '@/shared/api/tokens';

const linkLabels = [
  ['website_url', 'Website'],
  ['x_url', 'X'],
  ['telegram_url', 'Telegram'],
  ['discord_url', 'Discord'],
] as const;

/** Identity, creator-supplied metadata (as text and safe links), lifecycle and progress. */
export function TokenHeader({ token }: { token: TokenDetail }) {
  const { identity, metadata, creation, curve } = token;
  const links = metadata
    ? linkLabels.flatMap(([field, label]) => {
        const url = metadata[field];
        return url ? [{ url, label }] : [];
      })
    : [];
  return (
    <header className="token-header panel">
      <TokenAvatar
        imageUrl={metadata?.image_url ?? null}
        symbol={identity.symbol}
        address={identity.address}
        size={72}
      />
      <div className="token-header-main">
        <div className="token-title">
          <h1>{identity.name}</h1>
          <span className="token-symbol-large">{identity.symbol}</span>
          <StarButton address={identity.address} name={identity.name} />
          <LifecycleBadge lifecycle={curve.lifecycle} />
          {token.excluded ? <span className="badge badge-bad">Hidden from lists</span> : null}
        </div>
        <p className="muted small token-meta">
          <span className="mono" title={identity.address}>
            {shortAddress(identity.address)}
          </span>{' '}
          · created by <AddressLink address={creation.creator} kind="creator" />{' '}
          <RelativeTime unixSeconds={creation.block_timestamp} /> in block #{creation.block_number}
        </p>
        {metadata?.description ? <p className="token-description">{metadata.description}</p> : null}
        {links.length > 0 ? (
          <ul className="token-links" aria-label="Links supplied by the creator">
            {links.map((link) => (
              <li key={link.label}>
                <ExternalLink href={link.url}>{link.label}</ExternalLink>
              </li>
            ))}
          </ul>
        ) : null}
        {metadata === null ? (
          <p className="muted small">No metadata has been finalized for this token.</p>
        ) : (
          <p className="muted small">
            Description, image and links are supplied by the creator and unverified.
          </p>
        )}
        <div className="token-progress">
          {curve.lifecycle === 'curve' ? (
            <>
              <ProgressBar bps={curve.progress_bps} label="Graduation progress" />
              <span className="small">{formatBps(curve.progress_bps)} of the way to graduation</span>
            </>
          ) : (
            <span className="small">Graduated to a Uniswap V3 pool</span>
          )}
        </div>
      </div>
    </header>
  );
}
