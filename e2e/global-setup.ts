import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableBackends } from '../test/database';
import { startIndexedStack } from '../test/stack';

/**
 * Starts the real stack once for every browser test: anvil with two days of simulated launchpad
 * history ending now, a fresh database, and `next start` whose embedded indexer follows the
 * chain through a loopback RPC proxy. Browsers talk to anvil directly (PUBLIC_RPC_URL), so a
 * test can freeze what the indexer sees of the chain head without stalling the wallet.
 *
 * Tests reach the stack through env: E2E_BASE_URL (web), E2E_RPC_URL (anvil), E2E_FACTORY,
 * E2E_DEPLOYMENT (the launchpad's addresses, see e2e/chain.ts), and
 * E2E_CONTROL_URL, a loopback control endpoint of this process (see e2e/control.ts).
 */
export default async function globalSetup() {
  const [backend] = await availableBackends();
  if (!backend) throw new Error('no database backend available');
  const stack = await startIndexedStack(
    backend,
    { seed: 7, launches: 24, actions: 260, recent: true },
    (chain) => ({
      PUBLIC_RPC_URL: chain.anvil.rpcUrl,
      SWAP_ROUTER_ADDRESS: chain.deployment.contracts.router,
    }),
    { proxy: true },
  );
  const proxy = stack.proxy;
  if (!proxy) throw new Error('the stack was started without its RPC proxy');

  const control = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://control');
    if (request.method === 'POST' && url.pathname === '/indexer/freeze') {
      const block = Number(url.searchParams.get('block'));
      proxy.freezeHead(block);
      response.writeHead(204).end();
    } else if (request.method === 'POST' && url.pathname === '/indexer/release') {
      proxy.freezeHead(undefined);
      response.writeHead(204).end();
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));

  process.env.E2E_BASE_URL = stack.server.baseUrl;
  process.env.E2E_RPC_URL = stack.chain.anvil.rpcUrl;
  process.env.E2E_FACTORY = stack.chain.deployment.contracts.factory;
  process.env.E2E_DEPLOYMENT = JSON.stringify(stack.chain.deployment, (_key, value: unknown) =>
    typeof value === 'bigint' ? { $bigint: value.toString() } : value,
  );
  process.env.E2E_CONTROL_URL = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
  return async () => {
    control.close();
    await stack.stop();
  };
}
