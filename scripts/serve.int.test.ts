import { type ChildProcess, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { assertBuilt, compiledServer, freePort } from '../test/app-server';
import { collectOutput, productionScriptEnv } from '../test/child-process';

/** Runs `npm run serve` in production with `env` (nothing else) until it exits (or 60 s pass); its code and output. */
function runServe(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    assertBuilt();
    const child: ChildProcess = spawn(process.execPath, [compiledServer], {
      env: productionScriptEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collectOutput(child);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output() });
    });
  });
}

describe('npm run serve start-up', () => {
  it('refuses to start in production on a real chain without PUBLIC_BASE_URL, naming it', async () => {
    const { code, output } = await runServe({
      PORT: String(await freePort()),
      // Never contacted: the configuration is refused before anything connects.
      RPC_URL: 'http://127.0.0.1:9/',
      CHAIN_ID: '8453',
      FACTORY_ADDRESS: `0x${'1'.repeat(40)}`,
      START_BLOCK: '1',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none',
    });
    expect(code).toBe(1);
    expect(output).toMatch(/PUBLIC_BASE_URL: is required in production on chain 8453/);
    expect(output).not.toMatch(/listening/);
  }, 90_000);
});
