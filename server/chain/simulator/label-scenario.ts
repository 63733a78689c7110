import { type Address, type Hash, keccak256, toHex } from 'viem';
import { WAD } from '../../../shared/units';
import { bondingCurveAbi, launchFactoryAbi, launchTokenAbi } from '../abis';
import type { DevnetClient } from '../clients';
import type { LaunchpadDeployment } from '../deploy';
import type { LaunchpadActions } from '../launchpad-actions';

/** Who did what in {@link runLabelScenario}: the known answer of its labels. */
export interface LabelScenario {
  token: Address;
  creator: Address;
  /** Bought in the launch block, together: bundlers and snipers. */
  bundlers: Address[];
  /** Received tokens from the creator, then sold some of them (at the creator's cost, carried with them). */
  linked: Address;
  /**
   * Fresh wallets the creator paid native coin before the launch, in a chain (creator → the
   * first → the second → the third), each of which then bought: 1, 2 and 3 hops away.
   */
  funded: [Address, Address, Address];
  /** Received the tokens of one curve buy that a contract (BundleBuyer) made for the creator, block launch + 1. */
  fanned: Address[];
}

const GWEI = 10n ** 9n;

/**
 * A launch as trader labels see it (docs/api.md "Traders, PnL and labels"): the creator pays
 * native coin down a chain of three fresh wallets, launches with a first buy while
 * `bundlers.length` wallets buy the same block (mining paused, the launch ordered first by its
 * higher tip), has a contract buy and split the tokens among three fresh wallets (block
 * launch + 1), and the funded wallets buy (launch + 2, + 3, + 4). Then it sends tokens to a
 * wallet that dumps half of them, one bundler sells out, the second funded wallet and the first
 * bundle recipient sell half, and the creator sells part of its buy.
 */
export async function runLabelScenario(
  client: DevnetClient,
  deployment: LaunchpadDeployment,
  actions: LaunchpadActions,
  wallets: { creator: Address; bundlers: Address[]; linked: Address },
  seed: number,
): Promise<LabelScenario> {
  const { creator, bundlers, linked } = wallets;
  const fresh = (role: string) =>
    `0x${keccak256(toHex(`launchdex-labels:${seed}:${role}`)).slice(-40)}` as Address;
  const funded: [Address, Address, Address] = [fresh('funded-0'), fresh('funded-1'), fresh('funded-2')];
  const fanned = [fresh('fanned-0'), fresh('fanned-1'), fresh('fanned-2')];
  const bundleBuyer = await actions.deployBundleBuyer(creator);
  let payer = creator;
  for (const [i, wallet] of funded.entries()) {
    await actions.sendNative({ from: payer, to: wallet, value: (4n - BigInt(i)) * WAD });
    payer = wallet;
  }
  const args = [
    `Bundle ${seed}`,
    `BND${seed}`,
    10n ** 27n,
    `0x${seed.toString(16).padStart(64, '0')}`,
  ] as const;
  // The launch's addresses, as the pending launch will create them (nothing else is sent meanwhile).
  const launch = {
    address: deployment.contracts.factory,
    abi: launchFactoryAbi,
    functionName: 'launch',
    args,
    value: WAD / 10n,
    account: creator,
  } as const;
  const { result } = await client.simulateContract(launch);
  const [token, curve] = result;
  await client.test.setAutomine(false);
  const hashes: Hash[] = [];
  try {
    hashes.push(
      await client.writeContract({
        ...launch,
        gas: 8_000_000n,
        maxFeePerGas: 200n * GWEI,
        maxPriorityFeePerGas: 50n * GWEI,
      }),
    );
    for (const trader of bundlers)
      hashes.push(
        await client.writeContract({
          address: curve,
          abi: bondingCurveAbi,
          functionName: 'buy',
          args: [0n, 2n ** 40n],
          value: WAD / 20n,
          account: trader,
          gas: 600_000n,
          maxFeePerGas: 200n * GWEI,
          maxPriorityFeePerGas: GWEI,
        }),
      );
    await client.test.mine({ blocks: 1 });
  } finally {
    await client.test.setAutomine(true);
  }
  const receipts = await Promise.all(hashes.map((hash) => client.waitForTransactionReceipt({ hash })));
  const blocks = new Set(receipts.map((r) => r.blockNumber));
  if (receipts.some((r) => r.status !== 'success') || blocks.size !== 1)
    throw new Error('the launch and its bundle did not all succeed in one block');

  await actions.bundleBuy({
    account: creator,
    bundler: bundleBuyer,
    token,
    recipients: fanned,
    value: WAD / 5n,
  });
  // Gas for the recipient that sells, set as state: a payment would be a transaction of its own.
  await client.test.setBalance({ address: fanned[0] as Address, value: WAD });
  for (const wallet of funded) await actions.buy({ trader: wallet, token, value: WAD / 10n });
  const creatorHeld = await balanceOf(client, token, creator);
  await actions.transfer({ from: creator, token, to: linked, amount: creatorHeld / 4n });
  await actions.sell({ trader: linked, token, amount: creatorHeld / 8n });
  const first = bundlers[0] as Address;
  await actions.sell({ trader: first, token, amount: await balanceOf(client, token, first) });
  for (const wallet of [funded[1], fanned[0] as Address])
    await actions.sell({ trader: wallet, token, amount: (await balanceOf(client, token, wallet)) / 2n });
  await actions.sell({ trader: creator, token, amount: creatorHeld / 2n });
  return { token, creator, bundlers, linked, funded, fanned };
}

async function balanceOf(client: DevnetClient, token: Address, owner: Address): Promise<bigint> {
  return client.readContract({
    address: token,
    abi: launchTokenAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** Who did what in {@link runPoolPayerScenario}. */
export interface PoolPayerScenario {
  /** Bought the token on the pool, then sent some of it to `payer`. */
  buyer: Address;
  /** Only received the token, then paid a pool sell whose proceeds went to `recipient`. */
  payer: Address;
  /** The sell's trader (the swap's recipient): sold tokens it never held. */
  recipient: Address;
}

/**
 * A pool sell paid by one wallet for another (docs/api.md "Traders, PnL and labels"): the payer,
 * which had only received the token, gets a row at its balance that the swap does not move; the
 * recipient is the trader. `token` must be graduated.
 */
export async function runPoolPayerScenario(
  deployment: LaunchpadDeployment,
  actions: LaunchpadActions,
  token: Address,
  wallets: PoolPayerScenario,
): Promise<PoolPayerScenario> {
  const { stable } = deployment.contracts;
  const { buyer, payer, recipient } = wallets;
  await actions.wrap({ account: buyer, value: 5n * WAD });
  await actions.approveRouter({ account: buyer, token: stable });
  await actions.swap({ trader: buyer, tokenIn: stable, tokenOut: token, amountIn: 2_000_000n });
  const bought = await actions.balanceOf(token, buyer);
  await actions.transfer({ from: buyer, token, to: payer, amount: bought / 2n });
  await actions.approveRouter({ account: payer, token });
  await actions.swap({ trader: payer, tokenIn: token, tokenOut: stable, amountIn: bought / 4n, recipient });
  return wallets;
}
