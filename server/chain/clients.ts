import {
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  publicActions,
} from 'viem';

/** A chain definition for viem from what the config knows. */
export function launchpadChain(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: chainId === 31337 ? 'Launchdex devnet' : `Chain ${chainId}`,
    nativeCurrency: { name: 'USD Coin', symbol: 'USDC', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * Public client for reads. `cacheTime: 0` because viem otherwise caches the block number for
 * about 4 s, which hides new anvil blocks from tests and the indexer.
 */
export function createChainPublicClient(chainId: number, rpcUrl: string) {
  return createPublicClient({
    chain: launchpadChain(chainId, rpcUrl),
    transport: http(rpcUrl),
    cacheTime: 0,
    pollingInterval: 250,
  });
}

/**
 * Wallet + test actions against an anvil devnet started with --auto-impersonate: any address
 * can send transactions, so simulated traders need no private keys.
 */
export function createDevnetClient(chainId: number, rpcUrl: string) {
  const chain = launchpadChain(chainId, rpcUrl);
  const transport = http(rpcUrl);
  return createWalletClient({ chain, transport, cacheTime: 0 })
    .extend(publicActions)
    .extend((client) => ({
      test: createTestClient({ chain: client.chain, transport, mode: 'anvil', cacheTime: 0 }),
    }));
}
export type DevnetClient = ReturnType<typeof createDevnetClient>;
