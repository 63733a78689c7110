export function LifecycleBadge({ lifecycle }: { lifecycle: 'curve' | 'graduated' }) {
  return lifecycle === 'graduated' ? (
    <span className="badge badge-good">Graduated</span>
  ) : (
    <span className="badge">Bonding curve</span>
  );
}

export function SourceBadge({ source }: { source: 'curve' | 'dex_v3' }) {
  return source === 'dex_v3' ? (
    <span className="badge badge-accent">Uniswap V3</span>
  ) : (
    <span className="badge">Curve</span>
  );
}
