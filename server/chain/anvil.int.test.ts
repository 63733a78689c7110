import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../test/app-server';
import { type AnvilProcess, startAnvil } from './anvil';
import { createDevnetClient } from './clients';

/** Mines blocks until anvil has spilled block states into its cache directory. */
async function spill(anvil: AnvilProcess): Promise<number> {
  const client = createDevnetClient(31337, anvil.rpcUrl);
  const files = () => readdirSync(anvil.cacheDir, { recursive: true }).length;
  for (let round = 0; round < 20 && files() === 0; round++) {
    await client.sendTransaction({
      account: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      to: '0x0000000000000000000000000000000000001234',
      value: 1n,
    });
    await client.test.mine({ blocks: 256 });
  }
  return files();
}

describe('anvil block-state cache', () => {
  it('is a directory of its own, removed when anvil stops', async () => {
    const anvil = await startAnvil({ port: await freePort() });
    expect(await spill(anvil)).toBeGreaterThan(0);
    await anvil.stop();
    expect(existsSync(anvil.cacheDir)).toBe(false);
  });

  it('is removed when anvil is killed', async () => {
    const anvil = await startAnvil({ port: await freePort() });
    expect(await spill(anvil)).toBeGreaterThan(0);
    const exited = once(anvil.process, 'exit');
    anvil.process.kill('SIGKILL');
    await exited;
    expect(existsSync(anvil.cacheDir)).toBe(false);
  });
});
