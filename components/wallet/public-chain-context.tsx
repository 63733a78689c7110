'use client';

import { createContext, useContext } from 'react';
import type { PublicChain } from '@/shared/chain/public-chain';

const PublicChainContext = createContext<PublicChain | null>(null);

export const PublicChainProvider = PublicChainContext.Provider;

/** The chain this deployment indexes, or null when none is configured (no wallet UI then). */
export function usePublicChain(): PublicChain | null {
  return useContext(PublicChainContext);
}

/** A short display name for the configured chain. */
export function chainLabel(chainId: number): string {
  return chainId === 31337 ? 'the Launchdex devnet (chain 31337)' : `chain ${chainId}`;
}
