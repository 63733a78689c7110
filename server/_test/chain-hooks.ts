import { afterAll, beforeAll } from 'vitest';
import type { Ledger } from '../chain/simulator/ledger';
import { type SimulatedFixture, startSimulatedChain, type TestChain } from './chain';

/**
 * One simulated chain for the tests of a file or a describe: started before them, stopped after
 * them. `started` hands it to the caller's own bindings, so the tests read `chain` as before.
 */
export function simulatedChainForTests(
  fixture: SimulatedFixture,
  started: (simulated: { chain: TestChain; ledger: Ledger }) => void,
  timeoutMs = 120_000,
): void {
  let chain: TestChain | undefined;
  beforeAll(async () => {
    const simulated = await startSimulatedChain(fixture);
    chain = simulated.chain;
    started(simulated);
  }, timeoutMs);
  afterAll(async () => {
    await chain?.stop();
  });
}
