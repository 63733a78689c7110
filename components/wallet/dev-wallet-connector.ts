import { createWalletClient, type EIP1193RequestFn, http, numberToHex, SwitchChainError } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createConnector } from 'wagmi';
import { DEVNET_CHAIN_ID } from '@/shared/chain/public-chain';

/**
 * anvil's well-known test account #9 (from the default mnemonic every anvil prints). Its key is
 * public knowledge, which is the point: it is only ever offered on chain 31337, the local devnet,
 * where it is funded at genesis and nothing it holds has value.
 */
const DEVNET_TEST_KEY = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';
export const devnetTestAccount = privateKeyToAccount(DEVNET_TEST_KEY);

const connectedKey = 'devWallet.connected';

devWallet.type = 'devWallet' as const;

/**
 * A wagmi connector holding the devnet test account: transactions and typed data are signed here
 * with viem and sent as raw transactions through the app's RPC, so no browser extension is needed
 * to try a launch on the devnet. Refuses any chain but 31337 even if misconfigured.
 */
export function devWallet() {
  return createConnector<{ request: EIP1193RequestFn }, Record<string, unknown>, { [connectedKey]: boolean }>(
    (config) => {
      const chain = config.chains[0];
      if (chain.id !== DEVNET_CHAIN_ID) throw new Error('the devnet test wallet exists only on chain 31337');
      const rpcUrl = chain.rpcUrls.default.http[0];
      if (!rpcUrl) throw new Error('the devnet test wallet needs the chain RPC URL');
      const transport = http(rpcUrl);
      const address = devnetTestAccount.address;

      return {
        id: 'devWallet',
        name: 'Devnet test wallet',
        type: devWallet.type,
        async connect({ withCapabilities } = {}) {
          await config.storage?.setItem(connectedKey, true);
          return {
            accounts: (withCapabilities ? [{ address, capabilities: {} }] : [address]) as never,
            chainId: chain.id,
          };
        },
        async disconnect() {
          await config.storage?.removeItem(connectedKey);
        },
        async getAccounts() {
          return [address];
        },
        async getChainId() {
          return chain.id;
        },
        async getClient() {
          return createWalletClient({ account: devnetTestAccount, chain, transport });
        },
        async getProvider() {
          const rpc = transport({ chain, retryCount: 0 });
          const request = async ({ method, params }: { method: string; params?: unknown }) => {
            if (method === 'eth_chainId') return numberToHex(chain.id);
            if (method === 'eth_accounts' || method === 'eth_requestAccounts') return [address];
            return rpc.request({ method, params } as never);
          };
          return { request: request as EIP1193RequestFn };
        },
        async isAuthorized() {
          return Boolean(await config.storage?.getItem(connectedKey));
        },
        async switchChain({ chainId }) {
          if (chainId !== chain.id)
            throw new SwitchChainError(new Error('the devnet test wallet only exists on the devnet'));
          return chain;
        },
        onAccountsChanged() {},
        onChainChanged() {},
        onDisconnect() {
          config.emitter.emit('disconnect');
        },
      };
    },
  );
}
