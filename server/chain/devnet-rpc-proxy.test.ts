import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config';
import { DEVNET_RPC_MAX_BYTES, proxyDevnetRpc } from './devnet-rpc-proxy';

const logger = pino({ level: 'silent' });
const FACTORY = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const devnet = parseConfig(
  {},
  {
    cwd: '/srv/app',
    readFile: () =>
      JSON.stringify({
        chainId: 31337,
        rpcUrl: 'http://127.0.0.1:8545',
        startBlock: 1,
        contracts: { factory: FACTORY },
      }),
  },
);
const externalChain = parseConfig(
  { RPC_URL: 'http://127.0.0.1:8545', CHAIN_ID: '31337', FACTORY_ADDRESS: FACTORY, START_BLOCK: '0' },
  { cwd: '/srv/app', readFile: () => undefined },
);

/** The upstream anvil as seen through fetch: records what reached it. */
function upstream() {
  const seen: { url: string; body: unknown }[] = [];
  const fetchDouble = (async (url: string, init: RequestInit) => {
    seen.push({ url, body: JSON.parse(String(init.body)) });
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x7a69' }), { status: 200 });
  }) as unknown as typeof fetch;
  return { seen, fetch: fetchDouble };
}

/** Posts `body` to the proxy for `config` over a fresh upstream: the answer and what reached anvil. */
async function proxied(config: typeof devnet, body: unknown) {
  const { seen, fetch } = upstream();
  const response = await proxyDevnetRpc(rpc(body), { config, logger, fetch });
  return { response, seen };
}

const rpc = (body: unknown) =>
  new Request('http://app/api/devnet/rpc', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('proxyDevnetRpc', () => {
  it('is a 404 when the app indexes a chain named by RPC_URL (never proxies a real chain)', async () => {
    const { response, seen } = await proxied(externalChain, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' });
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('not_found');
    expect(seen).toHaveLength(0);
  });

  it('forwards wallet methods to the devnet anvil', async () => {
    const { response, seen } = await proxied(devnet, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
    expect(seen).toEqual([
      { url: 'http://127.0.0.1:8545', body: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' } },
    ]);
  });

  it.each(['eth_sendTransaction', 'anvil_setBalance', 'evm_mine', 'debug_traceTransaction'])(
    'refuses %s (unsigned sends and chain rewrites) without reaching anvil',
    async (method) => {
      const { response, seen } = await proxied(devnet, { jsonrpc: '2.0', id: 7, method });
      expect(await response.json()).toMatchObject({ id: 7, error: { code: -32601 } });
      expect(seen).toHaveLength(0);
    },
  );

  it('refuses a whole batch that contains one refused method', async () => {
    const { response, seen } = await proxied(devnet, [
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'anvil_mine' },
    ]);
    expect(await response.json()).toEqual([expect.objectContaining({ id: 2, error: expect.any(Object) })]);
    expect(seen).toHaveLength(0);
  });

  it('answers 413 past the body cap and 400 for bad JSON', async () => {
    const { fetch } = upstream();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: ['x'.repeat(DEVNET_RPC_MAX_BYTES)],
    });
    expect((await proxyDevnetRpc(rpc(big), { config: devnet, logger, fetch })).status).toBe(413);
    expect((await proxyDevnetRpc(rpc('{nope'), { config: devnet, logger, fetch })).status).toBe(400);
  });

  it('answers 503 when the devnet is down', async () => {
    const down = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch;
    const response = await proxyDevnetRpc(rpc({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }), {
      config: devnet,
      logger,
      fetch: down,
    });
    expect(response.status).toBe(503);
  });
});
