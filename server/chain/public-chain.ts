import { DEVNET_CHAIN_ID, DEVNET_RPC_PATH, type PublicChain } from '../../shared/chain/public-chain';
import type { Config } from '../config';

export { DEVNET_CHAIN_ID, DEVNET_RPC_PATH, type PublicChain };

/**
 * The client-safe chain description, or null when no chain is configured yet.
 * The browser RPC is PUBLIC_RPC_URL when set; on the local devnet (whose anvil listens on
 * loopback, out of a remote browser's reach) the same-origin proxy; elsewhere none.
 * @example publicChainOf(config) // { chainId: 31337, rpcUrl: '/api/devnet/rpc', devWallet: true, ... }
 */
export function publicChainOf(config: Config): PublicChain | null {
  if (!config.chain) return null;
  const { chainId, factoryAddress } = config.chain;
  let rpcUrl: string | null = null;
  if (config.publicRpcUrl) rpcUrl = config.publicRpcUrl;
  else if (config.chainSource === 'devnet') rpcUrl = DEVNET_RPC_PATH;
  return {
    chainId,
    factoryAddress,
    routerAddress: config.chain.routerAddress ?? null,
    rpcUrl,
    // The chain id, not the chain source, decides: RPC_URL may point at an anvil too, but a
    // real chain never has id 31337 and must never see a wallet whose key is public.
    devWallet: chainId === DEVNET_CHAIN_ID && config.devWallet !== 'off',
  };
}
