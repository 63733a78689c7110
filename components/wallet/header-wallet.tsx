'use client';

import dynamic from 'next/dynamic';
import { WalletIsland } from './wallet-island';

/** Until the wallet code has loaded: the same control, not yet usable. */
function PendingWalletButton() {
  return (
    <div className="wallet">
      <button type="button" className="button primary" disabled aria-busy="true">
        Connect wallet
      </button>
    </div>
  );
}

const WalletButton = dynamic(() => import('./wallet-button').then((module) => module.WalletButton), {
  ssr: false,
  loading: PendingWalletButton,
});

/** The header's wallet control, as a wallet island: no wallet code in the page's first load. */
export function HeaderWallet() {
  return (
    <WalletIsland fallback={<PendingWalletButton />}>
      <WalletButton />
    </WalletIsland>
  );
}
