'use client';

import { usePublicChain } from '@/components/wallet/public-chain-context';
import { WalletIsland } from '@/components/wallet/wallet-island';
import { LaunchForm } from './launch-form';

/** The /launch page body: the form when a chain is configured, otherwise why not. */
export function LaunchView() {
  const chain = usePublicChain();
  return (
    <>
      <div className="page-intro">
        <h1>Launch a token</h1>
        <p className="muted">
          Upload the token’s metadata, launch it on its bonding curve from your wallet, then sign to bind the
          metadata to it.
        </p>
      </div>
      {chain ? (
        <WalletIsland fallback={<p className="panel muted">Loading the wallet…</p>}>
          <LaunchForm chain={chain} />
        </WalletIsland>
      ) : (
        <p className="panel">No chain is configured on this server yet, so launching is not available.</p>
      )}
    </>
  );
}
