/**
 * A token's image, only ever from our own /objects route (images are creator-supplied; the
 * object route serves re-encoded copies with a strict CSP). Anything else falls back to a
 * monogram tinted by the address, so rows keep their rhythm without an image.
 */
export function TokenAvatar({
  imageUrl,
  symbol,
  address,
  size = 36,
}: {
  imageUrl: string | null;
  symbol: string;
  address: string;
  size?: number;
}) {
  if (imageUrl && /^\/objects\/[A-Za-z0-9._/-]+$/.test(imageUrl)) {
    return (
      // biome-ignore lint/performance/noImgElement: immutable objects are served as-is; next/image would re-encode them again
      <img className="token-avatar" src={imageUrl} alt="" width={size} height={size} loading="lazy" />
    );
  }
  const hue = Number.parseInt(address.slice(2, 8), 16) % 360;
  return (
    <span
      className="token-avatar token-avatar-monogram"
      aria-hidden="true"
      style={{ width: size, height: size, background: `hsl(${hue} 55% 45%)`, fontSize: size * 0.4 }}
    >
      {[...symbol][0]?.toUpperCase() ?? '?'}
    </span>
  );
}
