import { CompactPairCells, columns, DataTable, numWithAside } from '@/components/ui/data-table';
import { formatCount, formatNative } from '@/components/ui/format';
import { LifecycleBadge } from '@/components/ui/lifecycle-badge';
import { ProgressBar } from '@/components/ui/progress-bar';
import { RelativeTime } from '@/components/ui/relative-time';
import { TokenCell } from '@/components/ui/token-cell';
import { StarButton } from '@/components/watchlist/star-button';
import type { TokenListItem } from '@/shared/api/tokens';
import { PriceChange } from './price-change';

/**
 * Token rows for every list (home tabs and watchlist, search, a creator's tokens), each with its
 * watchlist star. Names and symbols are creator-supplied and rendered as text only. On a phone a row is compact: name and market cap
 * in the first cell, price and 24 h change in the second (the `show-sm` copies; the wide columns
 * are hidden), and the rest is on the token page.
 */
export function TokenTable({ tokens, caption }: { tokens: TokenListItem[]; caption: string }) {
  return (
    <DataTable
      className="token-table"
      caption={caption}
      columns={[
        columns.token,
        numWithAside('Price', 'show-sm', ' · 24h'),
        { label: '24h', className: 'num hide-sm' },
        { label: 'Market cap', className: 'num hide-sm' },
        { label: 'Volume 24h', className: 'num hide-sm' },
        { label: 'Graduation', className: 'hide-sm' },
        { label: 'Holders', className: 'num hide-md' },
        { label: 'Age', className: 'hide-md' },
      ]}
    >
      {tokens.map((token) => (
        <tr key={token.address}>
          <th scope="row">
            <div className="token-row-head">
              <StarButton address={token.address} name={token.name} />
              <TokenCell address={token.address} token={token}>
                <span className="show-sm" data-field="market-cap">
                  {' '}
                  · MC {formatNative(token.market_cap)}
                </span>
              </TokenCell>
            </div>
          </th>
          <CompactPairCells
            first={formatNative(token.current_price)}
            firstField="price"
            second={<PriceChange bps={token.price_change_24h_bps} />}
            secondField="change"
            markPhoneCopy
          />
          <td className="num hide-sm" data-field="market-cap">
            {formatNative(token.market_cap)}
          </td>
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
    </DataTable>
  );
}
