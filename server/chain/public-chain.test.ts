import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../config';
import { DEVNET_RPC_PATH, publicChainOf } from './public-chain';

const FACTORY = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const manifest = JSON.stringify({
  chainId: 31337,
  rpcUrl: 'http://127.0.0.1:8545',
  startBlock: 1,
  contracts: { factory: FACTORY },
});
const withManifest = { cwd: '/srv/app', readFile: () => manifest };
const noFiles = { cwd: '/srv/app', readFile: () => undefined };
const external = (chainId: string, extra: Record<string, string> = {}) =>
  parseConfig(
    {
      RPC_URL: 'https://rpc.example.org',
      CHAIN_ID: chainId,
      FACTORY_ADDRESS: FACTORY,
      START_BLOCK: '0',
      ...extra,
    },
    noFiles,
  );

describe('publicChainOf', () => {
  it('is null while no chain is configured (no RPC_URL, no devnet manifest yet)', () => {
    expect(publicChainOf(parseConfig({}, noFiles))).toBeNull();
  });

  it('on the local devnet: the same-origin RPC proxy and the devnet test wallet', () => {
    expect(publicChainOf(parseConfig({}, withManifest))).toEqual({
      chainId: 31337,
      factoryAddress: FACTORY,
      routerAddress: null,
      rpcUrl: DEVNET_RPC_PATH,
      devWallet: true,
    });
  });

  it('the swap router: the devnet manifest’s, or SWAP_ROUTER_ADDRESS (which wins)', () => {
    const ROUTER = '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0';
    const withRouter = {
      ...withManifest,
      readFile: () =>
        JSON.stringify({ ...JSON.parse(manifest), contracts: { factory: FACTORY, router: ROUTER } }),
    };
    expect(publicChainOf(parseConfig({}, withRouter))?.routerAddress).toBe(ROUTER);
    expect(publicChainOf(external('1', { SWAP_ROUTER_ADDRESS: ROUTER }))?.routerAddress).toBe(ROUTER);
    expect(() => external('1', { SWAP_ROUTER_ADDRESS: 'router' })).toThrow(ConfigError);
  });

  it('PUBLIC_RPC_URL wins over the devnet proxy', () => {
    const chain = publicChainOf(parseConfig({ PUBLIC_RPC_URL: 'http://127.0.0.1:9999' }, withManifest));
    expect(chain?.rpcUrl).toBe('http://127.0.0.1:9999');
  });

  it('DEV_WALLET=off removes the test wallet even on the devnet', () => {
    expect(publicChainOf(parseConfig({ DEV_WALLET: 'off' }, withManifest))?.devWallet).toBe(false);
  });

  it('a real chain never offers the test wallet, and without PUBLIC_RPC_URL the browser uses its wallet RPC', () => {
    expect(publicChainOf(external('5042002'))).toEqual({
      chainId: 5042002,
      factoryAddress: FACTORY,
      routerAddress: null,
      rpcUrl: null,
      devWallet: false,
    });
    expect(publicChainOf(external('1', { PUBLIC_RPC_URL: 'https://rpc.example.org' }))).toMatchObject({
      rpcUrl: 'https://rpc.example.org',
      devWallet: false,
    });
  });

  it('an external anvil (RPC_URL with chain id 31337) gets the test wallet but no proxy', () => {
    expect(publicChainOf(external('31337'))).toMatchObject({ rpcUrl: null, devWallet: true });
  });

  it.each([
    [{ DEV_WALLET: 'on' }, 'DEV_WALLET'],
    [{ PUBLIC_RPC_URL: 'ws://127.0.0.1:8545' }, 'PUBLIC_RPC_URL'],
  ])('rejects %j', (env, variable) => {
    expect(() => parseConfig(env, noFiles)).toThrow(ConfigError);
    try {
      parseConfig(env, noFiles);
    } catch (error) {
      expect((error as ConfigError).problems.map((p) => p.variable)).toContain(variable);
    }
  });
});
