'use client';

import { type ComponentType, type ReactNode, useEffect, useState } from 'react';
import type { PublicChain } from '@/shared/chain/public-chain';
import { usePublicChain } from './public-chain-context';

type Root = ComponentType<{ chain: PublicChain; children: ReactNode }>;
let loaded: Root | undefined;

/**
 * Wallet code (wagmi, viem's signing, the connectors) is a third of a page's JavaScript and most
 * visitors only read. A wallet island renders `fallback` first and `children` inside wagmi once its
 * code has loaded, after the page is interactive; pages without an island never load it.
 */
export function WalletIsland({ children, fallback = null }: { children: ReactNode; fallback?: ReactNode }) {
  const chain = usePublicChain();
  const [Root, setRoot] = useState<Root | undefined>(() => loaded);
  useEffect(() => {
    if (Root || !chain) return;
    let cancelled = false;
    void import('./wagmi-root').then((module) => {
      loaded = module.WagmiRoot;
      if (!cancelled) setRoot(() => module.WagmiRoot);
    });
    return () => {
      cancelled = true;
    };
  }, [Root, chain]);
  if (!chain) return null;
  return Root ? <Root chain={chain}>{children}</Root> : fallback;
}
