'use client';

import { type ReactNode, useState } from 'react';
import { WagmiProvider } from 'wagmi';
import { TRPCReactProvider } from '@/components/trpc/provider';
import { PublicChainProvider } from '@/components/wallet/public-chain-context';
import { createWagmiConfig } from '@/components/wallet/wagmi-config';
import type { PublicChain } from '@/shared/chain/public-chain';

/**
 * Every client-side context the app needs, in one place for the root layout. wagmi's hooks use
 * the QueryClient that TRPCReactProvider provides, so wallet and API queries share one cache.
 */
export function AppProviders({ chain, children }: { chain: PublicChain | null; children: ReactNode }) {
  const [wagmiConfig] = useState(() =>
    chain
      ? createWagmiConfig(chain, typeof window === 'undefined' ? undefined : window.location.origin)
      : null,
  );
  const inner = (
    <PublicChainProvider value={chain}>
      <TRPCReactProvider>{children}</TRPCReactProvider>
    </PublicChainProvider>
  );
  return wagmiConfig ? <WagmiProvider config={wagmiConfig}>{inner}</WagmiProvider> : inner;
}
