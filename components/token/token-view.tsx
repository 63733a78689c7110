'use client';

import { useState } from 'react';
import { LiveBadge } from '@/components/live/live-badge';
import { useLiveRefresh } from '@/components/live/use-live-refresh';
import { TradePanel } from '@/components/trade/trade-panel';
import { TxHash } from '@/components/ui/address-link';
import { formatNative, formatTokenAmount } from '@/components/ui/format';
import { RelativeTime } from '@/components/ui/relative-time';
import { TabList } from '@/components/ui/tab-list';
import type { TokenDetail } from '@/shared/api/tokens';
import { ActivityTable } from './activity-table';
import { HoldersTable } from './holders-table';
import { PriceChart } from './price-chart';
import { TokenHeader } from './token-header';
import { TokenConcentration, TokenRisk, TokenStats } from './token-stats';
import { TradersTable } from './traders-table';
import { TradesTable } from './trades-table';
import { useTokenDetailQuery } from './use-token-queries';

const sections = [
  { id: 'trades', label: 'Trades' },
  { id: 'activity', label: 'Activity' },
  { id: 'holders', label: 'Holders' },
  { id: 'traders', label: 'Top traders' },
] as const;
type Section = (typeof sections)[number]['id'];

/** The token page: header and stats from the server's first render, then live. */
export function TokenView({ initial }: { initial: TokenDetail }) {
  const address = initial.identity.address;
  const { data } = useTokenDetailQuery(address, initial);
  const token = data ?? initial;
  const [section, setSection] = useState<Section>('trades');
  const live = useLiveRefresh({ scope: 'token', token: address });
  return (
    <main className="token-page">
      <TokenHeader token={token} />
      {/* Chart first: beside it the trade panel on wide screens, below it on narrow ones (app/styles/token-page.css). */}
      <div className="token-market">
        <PriceChart address={address} />
        <TradePanel token={token} />
      </div>
      <TokenStats token={token} />
      <TokenConcentration token={token} />
      <TokenRisk token={token} />
      {token.graduation ? (
        <section className="panel graduation" aria-labelledby="graduation-heading">
          <h2 id="graduation-heading">Graduation</h2>
          <p className="small">
            Graduated <RelativeTime unixSeconds={token.graduation.block_timestamp} /> in block #
            {token.graduation.block_number} (<TxHash hash={token.graduation.transaction_hash} />
            ): {formatTokenAmount(token.graduation.token_amount)} {token.identity.symbol} and{' '}
            {formatNative(token.graduation.reserve_amount)} moved into the Uniswap V3 pool{' '}
            <span className="mono">{token.graduation.pool_address}</span>.
          </p>
        </section>
      ) : null}
      <section className="panel flush token-sections">
        <div className="section-bar">
          <TabList tabs={sections} selected={section} onSelect={setSection} label="Token data" />
          <LiveBadge status={live.status} block={live.indexedThroughBlock ?? token.indexed_through_block} />
        </div>
        <div role="tabpanel" id={`tab-${section}-panel`} aria-labelledby={`tab-${section}`}>
          {section === 'trades' ? <TradesTable address={address} symbol={token.identity.symbol} /> : null}
          {section === 'activity' ? <ActivityTable address={address} /> : null}
          {section === 'holders' ? <HoldersTable address={address} /> : null}
          {section === 'traders' ? <TradersTable address={address} symbol={token.identity.symbol} /> : null}
        </div>
      </section>
    </main>
  );
}
