'use client';

import type { ReactNode } from 'react';
import { WagmiProvider } from 'wagmi';
import type { PublicChain } from '@/shared/chain/public-chain';
import { createWagmiConfig } from './wagmi-config';

let shared: { chainId: number; config: ReturnType<typeof createWagmiConfig> } | undefined;

/**
 * One wagmi config per page load, whichever island asks first: the connection lives in the
 * config's store, so every island (the header's wallet menu, the launch form) sees the same
 * wallet. wagmi's queries use the page's one QueryClient (components/trpc/provider.tsx).
 */
function configFor(chain: PublicChain) {
  if (!shared || shared.chainId !== chain.chainId)
    shared = { chainId: chain.chainId, config: createWagmiConfig(chain, window.location.origin) };
  return shared.config;
}

export function WagmiRoot({ chain, children }: { chain: PublicChain; children: ReactNode }) {
  return <WagmiProvider config={configFor(chain)}>{children}</WagmiProvider>;
}
