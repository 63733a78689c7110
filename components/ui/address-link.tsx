import Link from 'next/link';
import { shortAddress } from './format';

/** A wallet or creator address, shortened, linking to its page; the full value is its label. */
export function AddressLink({ address, kind }: { address: string; kind: 'wallet' | 'creator' }) {
  return (
    <Link
      href={kind === 'creator' ? `/creators/${address}` : `/wallets/${address}`}
      className="mono"
      title={address}
      aria-label={`${kind === 'creator' ? 'Creator' : 'Wallet'} ${address}`}
    >
      {shortAddress(address)}
    </Link>
  );
}

/** A transaction hash, shortened, with the full hash for copy and screen readers. */
export function TxHash({ hash }: { hash: string }) {
  return (
    <abbr className="mono" title={hash}>
      {shortAddress(hash)}
    </abbr>
  );
}
