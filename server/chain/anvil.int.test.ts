import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from '../_test/app-server';
import { startAnvil } from './anvil';

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

/** Mines blocks until anvil has spilled block states into its cache directory. */
async function spill(url: string, cacheDir: string): Promise<number> {
  const files = () => readdirSync(cacheDir, { recursive: true }).length;
  for (let round = 0; round < 20 && files() === 0; round++) {
    await rpc(url, 'eth_sendTransaction', [
      {
        from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
        to: '0x0000000000000000000000000000000000001234',
        value: '0x1',
      },
    ]);
    await rpc(url, 'anvil_mine', ['0x100']);
  }
  return files();
}

describe('anvil block-state cache', () => {
  it('is a directory of its own, removed when anvil stops', async () => {
    const anvil = await startAnvil({ port: await freePort() });
    expect(await spill(anvil.rpcUrl, anvil.cacheDir)).toBeGreaterThan(0);
    await anvil.stop();
    expect(existsSync(anvil.cacheDir)).toBe(false);
  });

  it('is removed when anvil is killed', async () => {
    const anvil = await startAnvil({ port: await freePort() });
    expect(await spill(anvil.rpcUrl, anvil.cacheDir)).toBeGreaterThan(0);
    const exited = once(anvil.process, 'exit');
    anvil.process.kill('SIGKILL');
    await exited;
    expect(existsSync(anvil.cacheDir)).toBe(false);
  });
});
