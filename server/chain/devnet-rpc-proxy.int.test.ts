import pino from 'pino';
import { createPublicClient, createWalletClient, custom, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/app-server';
import { parseConfig } from '../config';
import { type AnvilProcess, startAnvil } from './anvil';
import { proxyDevnetRpc } from './devnet-rpc-proxy';

// anvil's test account #9 (the devnet test wallet's key): test-only, never funded anywhere real.
const wallet = privateKeyToAccount('0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6');
const RECIPIENT = '0x0000000000000000000000000000000000001234';

describe('the devnet RPC proxy in front of a real anvil', () => {
  let anvil: AnvilProcess;
  let transport: ReturnType<typeof custom>;

  beforeAll(async () => {
    anvil = await startAnvil({ port: await freePort() });
    const manifest = JSON.stringify({
      chainId: 31337,
      rpcUrl: anvil.rpcUrl,
      startBlock: 0,
      contracts: { factory: '0x5fbdb2315678afecb367f032d93f642f64180aa3' },
    });
    const config = parseConfig({}, { cwd: '/srv/app', readFile: () => manifest });
    let id = 0;
    // Each viem request goes through the route handler exactly as a browser's fetch would.
    transport = custom({
      async request({ method, params }) {
        const response = await proxyDevnetRpc(
          new Request('http://app/api/devnet/rpc', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
          }),
          { config, logger: pino({ level: 'silent' }) },
        );
        const body = (await response.json()) as {
          result?: unknown;
          error?: { code: number; message: string };
        };
        if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
        return body.result;
      },
    });
  }, 60_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  it('carries a locally signed transaction and its receipt (what the devnet test wallet does)', async () => {
    const walletClient = createWalletClient({ account: wallet, transport });
    const publicClient = createPublicClient({ transport });
    const hash = await walletClient.sendTransaction({ to: RECIPIENT, value: parseEther('1'), chain: null });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe('success');
    expect(await publicClient.getBalance({ address: RECIPIENT })).toBe(parseEther('1'));
  });

  it('refuses an unsigned eth_sendTransaction, which anvil --auto-impersonate would otherwise accept', async () => {
    const impersonated = createWalletClient({ account: RECIPIENT, transport });
    await expect(
      impersonated.sendTransaction({ to: wallet.address, value: 1n, chain: null }),
    ).rejects.toThrow(/not available through the devnet proxy/);
  });
});
