import { type Address, encodeFunctionData, type Hex } from 'viem';
import { bondingCurveAbi } from '../server/chain/abis';
import { type AnvilProcess, startAnvil } from '../server/chain/anvil';
import { createDevnetClient, type DevnetClient } from '../server/chain/clients';
import { deployLaunchpad, type LaunchpadDeployment } from '../server/chain/deploy';
import { createLaunchpadActions, type LaunchpadActions, type Mined } from '../server/chain/launchpad-actions';
import type { Ledger } from '../server/chain/simulator/ledger';
import { createSimulator } from '../server/chain/simulator/simulator';
import { freePort } from './app-server';

export interface TestChain {
  anvil: AnvilProcess;
  client: DevnetClient;
  deployment: LaunchpadDeployment;
  actions: LaunchpadActions;
  deployer: Address;
  stop(): Promise<void>;
}

/** The environment that points a server or indexer process at `chain`'s launchpad. */
export function chainEnv(chain: TestChain): Record<string, string> {
  return {
    RPC_URL: chain.anvil.rpcUrl,
    CHAIN_ID: '31337',
    FACTORY_ADDRESS: chain.deployment.contracts.factory,
    START_BLOCK: String(chain.deployment.startBlock),
  };
}

/** anvil's first default account; deploys everything in tests. */
export const DEPLOYER: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/** A fresh anvil on a free loopback port with the launchpad deployed. */
export async function startTestChain(options: { genesisTimestamp?: number } = {}): Promise<TestChain> {
  const anvil = await startAnvil({ port: await freePort(), genesisTimestamp: options.genesisTimestamp });
  const client = createDevnetClient(31337, anvil.rpcUrl);
  const deployment = await deployLaunchpad(client, DEPLOYER);
  return {
    anvil,
    client,
    deployment,
    actions: createLaunchpadActions(client, deployment),
    deployer: DEPLOYER,
    stop: () => anvil.stop(),
  };
}

/** A deterministic funded address that is not one of anvil's keyed accounts. */
export async function fundedAddress(chain: TestChain, index: number, balance = 10n ** 24n): Promise<Address> {
  const address = `0x${(0x1000 + index).toString(16).padStart(40, '0')}` as Address;
  await chain.client.test.setBalance({ address, value: balance });
  return address;
}

/** 2026-01-01T00:00:00Z: a fixed genesis so fixture block times repeat run to run. */
export const GENESIS = 1_767_225_600;

/** A fresh chain with a deterministic simulator fixture on it, and the fixture's ledger. */
export async function startSimulatedChain(
  fixture: SimulatedFixture,
): Promise<{ chain: TestChain; ledger: Ledger }> {
  const genesis = fixture.recent ? Math.floor(Date.now() / 1000) - 2 * 86_400 : GENESIS;
  const chain = await startTestChain({ genesisTimestamp: genesis });
  const simulator = createSimulator({
    client: chain.client,
    deployment: chain.deployment,
    seed: fixture.seed,
    advanceTime: true,
    startTime: genesis + 3_600,
  });
  const ledger = await simulator.runFixture({ launches: fixture.launches, actions: fixture.actions });
  if (fixture.recent) {
    // Bring chain time to the wall clock so "24 h" figures and relative times read as live.
    const latest = (await chain.client.getBlock()).timestamp;
    await chain.client.test.setNextBlockTimestamp({
      timestamp: BigInt(Math.max(Math.floor(Date.now() / 1000), Number(latest) + 1)),
    });
    await chain.client.test.mine({ blocks: 1 });
  }
  return { chain, ledger };
}

export interface SimulatedFixture {
  seed: number;
  launches: number;
  actions: number;
  /**
   * History over the two days before now, ending at the wall clock (browser tests, screenshots);
   * by default block times start at the fixed GENESIS so they repeat run to run.
   */
  recent?: boolean;
}

/**
 * Replaces the last `depth` blocks with new ones (`anvil_reorg`), block i holding one buy on
 * `curves[i % curves.length]`. `seq` numbers the buys across calls and `tag` sets the low digits
 * of their value, so that no replacement repeats a transaction of the old branch or of another
 * reorg. Returns the next `seq`.
 */
export async function reorgWithBuys(
  client: DevnetClient,
  depth: number,
  curves: readonly Address[],
  seq: number,
  tag: bigint,
): Promise<number> {
  const txs: [Record<string, Hex | Address>, number][] = [];
  for (let i = 0; i < depth; i++) {
    seq++;
    txs.push([
      {
        from: DEPLOYER,
        to: curves[i % curves.length] as Address,
        data: encodeFunctionData({ abi: bondingCurveAbi, functionName: 'buy', args: [0n, 2n ** 40n] }),
        value: `0x${(BigInt(seq) * 10n ** 15n + tag).toString(16)}`,
        gas: '0x200000',
      },
      i,
    ]);
  }
  await client.request({ method: 'anvil_reorg' as never, params: [depth, txs] as never });
  return seq;
}

/** The Trade event of a mined launchpad transaction (a buy, a sell, a first buy). */
export function tradeEvent(mined: Mined) {
  const event = mined.events.find((e) => e.eventName === 'Trade');
  if (event?.eventName !== 'Trade') throw new Error('no Trade event');
  return event.args;
}
