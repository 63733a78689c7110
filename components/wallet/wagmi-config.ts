import { defineChain } from 'viem';
import { createConfig, http, injected, unstable_connector } from 'wagmi';
import { DEVNET_CHAIN_ID, type PublicChain } from '@/shared/chain/public-chain';
import { devWallet } from './dev-wallet-connector';

/**
 * The wagmi config for the configured chain. The chain's RPC is the server-chosen browser RPC
 * (made absolute, since the devnet proxy is a same-origin path); without one, reads go through
 * the connected injected wallet. The devnet test wallet needs our RPC to send its raw transactions.
 */
export function createWagmiConfig(description: PublicChain, origin: string | undefined) {
  const rpcUrl =
    description.rpcUrl && origin ? new URL(description.rpcUrl, origin).toString() : description.rpcUrl;
  const devnet = description.chainId === DEVNET_CHAIN_ID;
  const chain = defineChain({
    id: description.chainId,
    name: devnet ? 'Launchdex devnet' : `Chain ${description.chainId}`,
    // The native currency is an 18-decimal stablecoin (Arc's USDC); on anvil it is test ether.
    nativeCurrency: devnet
      ? { name: 'Ether', symbol: 'ETH', decimals: 18 }
      : { name: 'USDC', symbol: 'USDC', decimals: 18 },
    rpcUrls: { default: { http: rpcUrl ? [rpcUrl] : [] } },
  });
  return createConfig({
    chains: [chain],
    connectors: [injected(), ...(description.devWallet && rpcUrl ? [devWallet()] : [])],
    transports: { [chain.id]: rpcUrl ? http(rpcUrl) : unstable_connector(injected) },
    ssr: true,
    // Receipts of a launch should show up within a second on the devnet, not the 4 s default.
    pollingInterval: 1_000,
  });
}
