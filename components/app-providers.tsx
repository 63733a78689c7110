'use client';

import type { ReactNode } from 'react';
import { TRPCReactProvider } from '@/components/trpc/provider';
import { PublicChainProvider } from '@/components/wallet/public-chain-context';
import type { PublicChain } from '@/shared/chain/public-chain';

/**
 * Every client-side context the app needs, in one place for the root layout. Wallet contexts are
 * not here: they load with the wallet islands that use them (components/wallet/wallet-island.tsx).
 */
export function AppProviders({ chain, children }: { chain: PublicChain | null; children: ReactNode }) {
  return (
    <PublicChainProvider value={chain}>
      <TRPCReactProvider>{children}</TRPCReactProvider>
    </PublicChainProvider>
  );
}
