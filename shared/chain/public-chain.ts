/** anvil's chain id: the only chain on which the devnet test wallet may ever be offered. */
export const DEVNET_CHAIN_ID = 31337;

/** The same-origin JSON-RPC route that forwards to the local devnet (served by the front, server/process/handlers.ts). */
export const DEVNET_RPC_PATH = '/api/devnet/rpc';

/**
 * What the browser needs to know about the chain, and nothing secret: the wallet UI is built from
 * this. `rpcUrl` null means the browser has no RPC of ours and reads through the injected wallet.
 */
export interface PublicChain {
  chainId: number;
  factoryAddress: `0x${string}`;
  /** Where graduated tokens are traded from the token page; null: no DEX trading offered. */
  routerAddress: `0x${string}` | null;
  rpcUrl: string | null;
  devWallet: boolean;
}
