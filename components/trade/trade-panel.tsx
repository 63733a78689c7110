'use client';

import dynamic from 'next/dynamic';
import type { Address } from 'viem';
import { WalletIsland } from '@/components/wallet/wallet-island';
import type { TokenDetail } from '@/shared/api/tokens';

const TradeForm = dynamic(() => import('./trade-form').then((module) => module.TradeForm), {
  ssr: false,
  loading: () => <p className="muted small">Loading the trade form…</p>,
});

/**
 * Buy and sell where people look: on the token page, with the connected wallet, on the curve
 * until the token graduates and on its Uniswap V3 pool after. A wallet island, so readers who
 * never trade load no wallet code.
 */
export function TradePanel({ token }: { token: TokenDetail }) {
  return (
    <section className="panel trade-panel" aria-labelledby="trade-heading">
      <h2 id="trade-heading">Trade</h2>
      <WalletIsland fallback={<p className="muted small">Loading the wallet…</p>}>
        <TradeForm
          target={{
            token: token.identity.address as Address,
            symbol: token.identity.symbol,
            pool: (token.graduation?.pool_address as Address | undefined) ?? null,
          }}
        />
      </WalletIsland>
    </section>
  );
}
