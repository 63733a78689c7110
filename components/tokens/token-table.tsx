import Link from 'next/link';
import { formatCount, formatNative } from '@/components/ui/format';
import { LifecycleBadge } from '@/components/ui/lifecycle-badge';
import { ProgressBar } from '@/components/ui/progress-bar';
import { RelativeTime } from '@/components/ui/relative-time';
import { TokenAvatar } from '@/components/ui/token-avatar';
import type { TokenListItem } from '@/shared/api/tokens';
import { PriceChange } from './price-change';

/**
 * Token rows for every list (home tabs, search, a creator's tokens). Names and symbols are
 * creator-supplied and rendered as text only.
 */
export function TokenTable({ tokens, caption }: { tokens: TokenListItem[]; caption: string }) {
  return (
    <div className="table-scroll">
      <table className="token-table">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Token</th>
            <th scope="col" className="num">
              Price
            </th>
            <th scope="col" className="num">
              24h
            </th>
            <th scope="col" className="num">
              Market cap
            </th>
            <th scope="col" className="num hide-sm">
              Volume 24h
            </th>
            <th scope="col" className="hide-sm">
              Graduation
            </th>
            <th scope="col" className="num hide-md">
              Holders
            </th>
            <th scope="col" className="hide-md">
              Age
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => (
            <tr key={token.address}>
              <th scope="row">
                <Link href={`/tokens/${token.address}`} className="token-cell">
                  <TokenAvatar imageUrl={token.image_url} symbol={token.symbol} address={token.address} />
                  <span className="token-names">
                    <span className="token-name">{token.name}</span>
                    <span className="token-symbol">{token.symbol}</span>
                  </span>
                </Link>
              </th>
              <td className="num">{formatNative(token.current_price)}</td>
              <td className="num">
                <PriceChange bps={token.price_change_24h_bps} />
              </td>
              <td className="num">{formatNative(token.market_cap)}</td>
              <td className="num hide-sm">{formatNative(token.volume_24h)}</td>
              <td className="hide-sm">
                {token.lifecycle === 'graduated' ? (
                  <LifecycleBadge lifecycle="graduated" />
                ) : (
                  <ProgressBar bps={token.progress_bps} label={`${token.symbol} graduation progress`} />
                )}
              </td>
              <td className="num hide-md">{formatCount(token.holders)}</td>
              <td className="hide-md muted">
                <RelativeTime unixSeconds={token.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
