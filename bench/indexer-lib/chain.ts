import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Address, encodeFunctionData } from 'viem';
import { benchSpammerBytecode } from '../../contracts/generated/bytecode.generated';
import { benchSpammerAbi, launchTokenAbi } from '../../server/chain/abis';
import { type AnvilProcess, dumpAnvilState, startAnvil } from '../../server/chain/anvil';
import { createDevnetClient, type DevnetClient } from '../../server/chain/clients';
import { deployLaunchpad, type LaunchpadDeployment } from '../../server/chain/deploy';
import { createLaunchpadActions } from '../../server/chain/launchpad-actions';
import { WAD } from '../../shared/units';
import { freePort } from '../../test/app-server';

/** The account that deploys, launches and sends the load of the benchmark chain. */
export const DEV: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/**
 * The chain's first block: above the seeded dataset's history (which ends at block 5.4M), so
 * that on top of it the benchmark appends after what is stored, as a live chain does.
 */
export const GENESIS_NUMBER = 10_000_000;

/** The benchmark chain on its anvil, built by this run or loaded from the one a run before kept. */
export interface BenchChain {
  anvil: AnvilProcess;
  client: DevnetClient;
  deployment: LaunchpadDeployment;
  /** Launchpad logs on the chain. */
  events: number;
  head: number;
  /** Dumps a chain this run built for the next runs; a no-op for a loaded one. */
  keepBuilt(): Promise<void>;
  /** Leaves the chain up for another indexer until Ctrl-C. */
  keepForPeer(): Promise<void>;
}

/** Starts anvil on the cached chain of this `scale` or builds one (`rebuild`: always build). */
export async function openBenchChain(scale: number, rebuild: boolean): Promise<BenchChain> {
  const cacheDir = path.resolve('.data/bench');
  const stateFile = path.join(cacheDir, `chain-scale${scale}-from${GENESIS_NUMBER}.state.json`);
  const metaFile = path.join(cacheDir, `chain-scale${scale}-from${GENESIS_NUMBER}.meta.json`);
  mkdirSync(cacheDir, { recursive: true });
  if (rebuild) {
    rmSync(stateFile, { force: true });
    rmSync(metaFile, { force: true });
  }
  const cached = existsSync(stateFile) && existsSync(metaFile);
  const anvil = await startAnvil({
    port: await freePort(),
    gasLimit: 100_000_000n,
    genesisTimestamp: 1_767_225_600,
    genesisNumber: GENESIS_NUMBER,
    // Loaded, never written back while the benchmark measures (see loadStateFile); a new chain is
    // dumped once, after it is built.
    ...(cached ? { loadStateFile: stateFile } : {}),
  });
  const client = createDevnetClient(31337, anvil.rpcUrl);
  let deployment: LaunchpadDeployment;
  let events: number;
  if (cached) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as {
      deployment: LaunchpadDeployment;
      events: number;
    };
    deployment = meta.deployment;
    events = meta.events;
    console.log(
      `▶ reusing the benchmark chain in ${path.relative(process.cwd(), stateFile)} (--rebuild to build anew)`,
    );
  } else {
    ({ deployment, events } = await buildChain(client, scale));
  }
  const head = Number(await client.getBlockNumber());
  return {
    anvil,
    client,
    deployment,
    events,
    head,
    /**
     * A chain built by this run is kept for the next ones, once its run is measured: the dump's
     * answer (1.5 GB at --scale 3 while it is decoded) would otherwise count in the indexer's RSS.
     */
    async keepBuilt() {
      if (cached) return;
      await dumpAnvilState(anvil.rpcUrl, stateFile);
      writeFileSync(
        metaFile,
        JSON.stringify({ deployment, events }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
      );
    },
    async keepForPeer() {
      console.log(
        [
          '',
          '▶ the benchmark chain stays up for a peer indexer (Ctrl-C to stop it):',
          `  RPC URL        ${anvil.rpcUrl}`,
          '  chain id       31337',
          `  factory        ${deployment.contracts.factory}`,
          `  start block    ${deployment.startBlock}`,
          `  head block     ${head}`,
          `  events         ${events} launchpad logs (TokenLaunched, Trade, Transfer, …)`,
          `  state file     ${path.relative(process.cwd(), stateFile)} (anvil --load-state reproduces it)`,
        ].join('\n'),
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    },
  };
}

async function buildChain(client: DevnetClient, scale: number) {
  console.log('▶ building the benchmark chain…');
  const buildStarted = Date.now();
  const deployment = await deployLaunchpad(client, DEV);
  const actions = createLaunchpadActions(client, deployment);
  const spammerHash = await client.deployContract({
    abi: benchSpammerAbi,
    bytecode: benchSpammerBytecode,
    account: DEV,
  });
  const spammer = (await client.waitForTransactionReceipt({ hash: spammerHash })).contractAddress as Address;
  const send = async (data: `0x${string}`, value = 0n) => {
    const hash = await client.sendTransaction({ account: DEV, to: spammer, data, value, gas: 16_000_000n });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') throw new Error(`load transaction ${hash} reverted`);
    return receipt.logs.length;
  };
  // A stretch of empty blocks, as real chains have between launchpad events. anvil's cost per
  // mined block grows with chain length, so 4k (in small calls) is what stays quick to build.
  for (let i = 0; i < 40; i++) await client.test.mine({ blocks: 100 });
  let events = 0;
  const launches = Math.round(20 * scale);
  for (let i = 0; i < launches; i++) {
    const { token, curve, receipt } = await actions.launch({
      creator: DEV,
      name: `Bench Token ${i}`,
      symbol: `BENCH${i}`,
      supply: 1_000_000_000n * WAD,
      metadataHash: `0x${(i + 1).toString(16).padStart(64, '0')}`,
      firstBuy: WAD,
    });
    events += receipt.logs.length;
    // One transaction may use at most 2^24 gas (EIP-7825): ~150 buys or ~350 transfers to new wallets.
    for (let b = 0; b < 6; b++) {
      const data = encodeFunctionData({
        abi: benchSpammerAbi,
        functionName: 'buys',
        args: [curve, 150n, WAD / 1000n],
      });
      events += await send(data, (150n * WAD) / 1000n);
      await client.test.increaseTime({ seconds: 300 });
    }
    const held = await client.readContract({
      address: token,
      abi: launchTokenAbi,
      functionName: 'balanceOf',
      args: [spammer],
    });
    for (let s = 0; s < 13; s++) {
      const data = encodeFunctionData({
        abi: benchSpammerAbi,
        functionName: 'scatter',
        args: [token, 350n, held / 5000n, BigInt(i * 100 + s)],
      });
      events += await send(data);
      await client.test.increaseTime({ seconds: 600 });
    }
    if ((i + 1) % 5 === 0) console.log(`  ${i + 1}/${launches} tokens, ${events} events`);
  }
  console.log(`  chain built in ${((Date.now() - buildStarted) / 1000).toFixed(1)}s: ${events} logs`);
  return { deployment, events };
}

/** One eth_getLogs of blocks [from, to], fetched and parsed in a child process: logs and seconds. */
export async function measureFloor(
  rpcUrl: string,
  from: number,
  to: number,
): Promise<{ logs: number; seconds: number }> {
  const script = `
    const started = performance.now();
    const response = await fetch(${JSON.stringify(rpcUrl)}, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs',
        params: [{ fromBlock: '0x${from.toString(16)}', toBlock: '0x${to.toString(16)}' }] }),
    });
    const logs = (await response.json()).result.length;
    console.log(JSON.stringify({ logs, seconds: (performance.now() - started) / 1000 }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout) as { logs: number; seconds: number };
}
