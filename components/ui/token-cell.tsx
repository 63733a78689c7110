import Link from 'next/link';
import type { ReactNode } from 'react';
import { shortAddress } from './format';
import { TokenAvatar } from './token-avatar';

/**
 * A token's image, name and symbol linking to its page. Without a name (a token the lists do not
 * show, or one still being looked up), its address stands in and `missing` takes the symbol's place.
 */
export function TokenCell({
  address,
  token,
  missing = 'not listed',
  children,
}: {
  address: string;
  token: { name: string; symbol: string; image_url: string | null } | undefined;
  missing?: string;
  children?: ReactNode;
}) {
  return (
    <Link href={`/tokens/${address}`} className="token-cell">
      <TokenAvatar imageUrl={token?.image_url ?? null} symbol={token?.symbol ?? '?'} address={address} />
      <span className="token-names">
        <span className="token-name">{token?.name ?? shortAddress(address)}</span>
        <span className="token-symbol">
          {token?.symbol ?? missing}
          {children}
        </span>
      </span>
    </Link>
  );
}
