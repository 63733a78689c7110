import type { Address, Hex } from 'viem';
import { createDevnetClient } from '../server/chain/clients';
import type { LaunchpadDeployment } from '../server/chain/deploy';
import { createLaunchpadActions } from '../server/chain/launchpad-actions';
import { e2eEnv } from './control';

/** The stack's anvil and launchpad, for tests that make chain activity happen (impersonated senders). */
export function e2eChain() {
  const client = createDevnetClient(31337, e2eEnv('E2E_RPC_URL'));
  const deployment = JSON.parse(e2eEnv('E2E_DEPLOYMENT'), (_key, value: unknown) =>
    value !== null && typeof value === 'object' && '$bigint' in value ? BigInt(String(value.$bigint)) : value,
  ) as LaunchpadDeployment;
  return { client, deployment, actions: createLaunchpadActions(client, deployment) };
}

/** anvil's test account #9, the key the devnet test wallet holds. */
export const TEST_WALLET = '0xa0ee7a142d267c1f36714e4a8f75612f20a79720';

/** Mining on or off: with it off, a sent transaction waits in anvil's pool until mined or dropped. */
export async function setAutomine(on: boolean): Promise<void> {
  await e2eChain().client.request({ method: 'evm_setAutomine', params: [on] } as never);
}

/** A funded address that is none of anvil's keyed accounts (senders are impersonated). */
export async function fundedWallet(index: number): Promise<Address> {
  const { client } = e2eChain();
  const address = `0x${(0xe2e000 + index).toString(16).padStart(40, '0')}` as Address;
  await client.test.setBalance({ address, value: 10n ** 24n });
  return address;
}

/** Waits until the web server's index has reached the chain head. */
export async function waitForIndexedHead(baseUrl: string): Promise<number> {
  const { client } = e2eChain();
  const head = Number(await client.getBlockNumber());
  const deadline = Date.now() + 30_000;
  for (;;) {
    const health = (await (await fetch(`${baseUrl}/api/health`)).json()) as {
      indexer: { indexed_through_block: number | null };
    };
    const indexed = health.indexer.indexed_through_block ?? 0;
    if (indexed >= head) return indexed;
    if (Date.now() > deadline) throw new Error(`index stuck at ${indexed}, head ${head}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const NO_METADATA: Hex = `0x${'00'.repeat(32)}`;

/**
 * A token launched on the stack's chain without bound metadata (1e9 whole tokens) by funded
 * wallet `creatorIndex`: what a test that needs a fresh token of its own starts from.
 */
export async function launchBareToken(creatorIndex: number, name: string, symbol: string) {
  return e2eChain().actions.launch({
    creator: await fundedWallet(creatorIndex),
    name,
    symbol,
    supply: 10n ** 27n,
    metadataHash: NO_METADATA,
  });
}
