'use client';

import dynamic from 'next/dynamic';
import { WalletIsland } from '@/components/wallet/wallet-island';
import type { TokenDetail } from '@/shared/api/tokens';

const CurveTrade = dynamic(() => import('./curve-trade').then((module) => module.CurveTrade), {
  ssr: false,
  loading: () => <p className="muted small">Loading the trade form…</p>,
});

/**
 * Buy and sell where people look: on the token page, with the connected wallet. A wallet island,
 * so readers who never trade load no wallet code.
 */
export function TradePanel({ token }: { token: TokenDetail }) {
  return (
    <section className="panel trade-panel" aria-labelledby="trade-heading">
      <h2 id="trade-heading">Trade</h2>
      {token.curve.lifecycle === 'graduated' ? (
        <p className="muted small">
          {token.identity.symbol} has graduated and trades on its Uniswap V3 pool
          {token.graduation ? <span className="mono"> {token.graduation.pool_address}</span> : null}.
        </p>
      ) : (
        <WalletIsland fallback={<p className="muted small">Loading the wallet…</p>}>
          <CurveTrade token={token.identity.address as `0x${string}`} symbol={token.identity.symbol} />
        </WalletIsland>
      )}
    </section>
  );
}
