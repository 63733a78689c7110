import type { Config } from '../config';

/** anvil's chain id: the only chain on which the devnet test wallet may ever be offered. */
export const DEVNET_CHAIN_ID = 31337;

/** The same-origin JSON-RPC route that forwards to the local devnet (app/api/devnet/rpc). */
export const DEVNET_RPC_PATH = '/api/devnet/rpc';

/**
 * What the browser needs to know about the chain, and nothing secret: the wallet UI is built from
 * this. `rpcUrl` null means the browser has no RPC of ours and reads through the injected wallet.
 */
export interface PublicChain {
  chainId: number;
  factoryAddress: `0x${string}`;
  rpcUrl: string | null;
  devWallet: boolean;
}

/**
 * The client-safe chain description, or null when no chain is configured yet.
 * The browser RPC is PUBLIC_RPC_URL when set; on the local devnet (whose anvil listens on
 * loopback, out of a remote browser's reach) the same-origin proxy; elsewhere none.
 * @example publicChainOf(getConfig()) // { chainId: 31337, rpcUrl: '/api/devnet/rpc', devWallet: true, ... }
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
    rpcUrl,
    // The chain id, not the chain source, decides: RPC_URL may point at an anvil too, but a
    // real chain never has id 31337 and must never see a wallet whose key is public.
    devWallet: chainId === DEVNET_CHAIN_ID && config.devWallet !== 'off',
  };
}
