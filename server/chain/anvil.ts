import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);

/** The anvil binary shipped inside the @foundry-rs/anvil platform package for this machine. */
export function anvilBinaryPath(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return path.join(
      path.dirname(require.resolve(`${pkg}/package.json`)),
      'bin',
      process.platform === 'win32' ? 'anvil.exe' : 'anvil',
    );
  } catch {
    throw new Error(
      `anvil is not installed for ${process.platform}-${process.arch} (expected npm package ${pkg})`,
    );
  }
}

export interface StartAnvilParameters {
  port: number;
  host?: string;
  chainId?: number;
  /** Seconds between blocks; undefined mines one block per transaction (automine). */
  blockTime?: number;
  /** anvil --state: load from and dump to this file, so a devnet survives restarts. */
  stateFile?: string;
  /**
   * anvil --load-state: start from this file and never write it back. A benchmark's cached
   * chain: with `stateFile`, anvil dumps its whole state every 5 s, and for the indexer
   * benchmark's 250 MB that took ~0.6 s of a core in about every other measured run.
   */
  loadStateFile?: string;
  /** Unix seconds of the genesis block; fixes block times for deterministic fixtures. */
  genesisTimestamp?: number;
  /** Number of the genesis block (anvil --number): a chain that starts where real chains are. */
  genesisNumber?: number;
  /** Block gas limit; benchmarks raise it to pack thousands of events into one transaction. */
  gasLimit?: bigint;
}

export interface AnvilProcess {
  rpcUrl: string;
  process: ChildProcess;
  /** Where this anvil spills the states of older blocks; removed when it exits. */
  cacheDir: string;
  stop(): Promise<void>;
}

/**
 * Starts anvil on loopback and resolves once it answers JSON-RPC.
 * @example const anvil = await startAnvil({ port: 8545 }); ... await anvil.stop();
 */
export async function startAnvil(parameters: StartAnvilParameters): Promise<AnvilProcess> {
  const host = parameters.host ?? '127.0.0.1';
  const args = [
    '--host',
    host,
    '--port',
    String(parameters.port),
    '--chain-id',
    String(parameters.chainId ?? 31337),
    '--accounts',
    '10',
    '--balance',
    '1000000',
    '--auto-impersonate',
    '--no-request-size-limit',
  ];
  if (parameters.blockTime !== undefined) args.push('--block-time', String(parameters.blockTime));
  if (parameters.stateFile) args.push('--state', parameters.stateFile, '--state-interval', '5');
  else if (parameters.loadStateFile) args.push('--load-state', parameters.loadStateFile);
  if (parameters.genesisTimestamp !== undefined)
    args.push('--timestamp', String(parameters.genesisTimestamp));
  if (parameters.genesisNumber !== undefined) args.push('--number', String(parameters.genesisNumber));
  // anvil spills the states of older blocks to disk, by default under ~/.foundry/anvil/tmp, and
  // leaves them there when killed: 20 GB after a day of benchmarks (17 GB from building the
  // --scale 3 chain). Each anvil gets a directory of its own, removed when it exits.
  const cacheDir = mkdtempSync(path.join(tmpdir(), 'launchdex-anvil-'));
  const removeCache = () => rmSync(cacheDir, { recursive: true, force: true });
  args.push('--cache-path', cacheDir);
  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.once('exit', removeCache);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 20_000) output = output.slice(-10_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Whatever ends this process (a thrown error included) must not leave a chain running.
  const killOnExit = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    removeCache();
  };
  process.on('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const rpcUrl = `http://${host}:${parameters.port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`anvil did not answer on ${rpcUrl} within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    rpcUrl,
    process: child,
    cacheDir,
    stop: async () => {
      if (child.exitCode !== null) return;
      // SIGINT lets anvil dump --state before exiting.
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Writes the chain of the anvil at `rpcUrl` to `file` in the format `--load-state` reads, once
 * (anvil_dumpState answers gzip-compressed JSON). Written beside and renamed into place, so a
 * dump cut short never leaves a file that looks complete.
 */
export async function dumpAnvilState(rpcUrl: string, file: string): Promise<void> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_dumpState', params: [] }),
  });
  const answer = (await response.json()) as { result?: string; error?: { message: string } };
  if (!answer.result) throw new Error(`anvil_dumpState failed: ${answer.error?.message ?? response.status}`);
  const partial = `${file}.partial`;
  writeFileSync(partial, gunzipSync(Buffer.from(answer.result.slice(2), 'hex')));
  renameSync(partial, file);
}
