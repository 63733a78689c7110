import type { Address } from 'viem';
import { afterAll, beforeAll } from 'vitest';
import type { Ledger } from '../server/chain/simulator/ledger';
import {
  fundedAddress,
  type SimulatedFixture,
  startSimulatedChain,
  startTestChain,
  type TestChain,
} from './chain';

/**
 * One simulated chain for the tests of a file or a describe: started before them, stopped after
 * them. `started` hands it to the caller's own bindings, so the tests read `chain` as before.
 */
export function simulatedChainForTests(
  fixture: SimulatedFixture,
  started: (simulated: { chain: TestChain; ledger: Ledger }) => void | Promise<void>,
  timeoutMs = 120_000,
): void {
  let chain: TestChain | undefined;
  beforeAll(async () => {
    const simulated = await startSimulatedChain(fixture);
    chain = simulated.chain;
    await started(simulated);
  }, timeoutMs);
  afterAll(async () => {
    await chain?.stop();
  });
}

/**
 * One bare test chain (the launchpad deployed, no fixture) for the tests of a file, with a funded
 * creator account (the chain's account 0): started before them, stopped after them.
 */
export function testChainForTests(
  started: (launchpad: { chain: TestChain; creator: Address }) => void,
  timeoutMs?: number,
): void {
  let chain: TestChain | undefined;
  beforeAll(async () => {
    chain = await startTestChain();
    started({ chain, creator: await fundedAddress(chain, 0) });
  }, timeoutMs);
  afterAll(async () => {
    await chain?.stop();
  });
}
