import { type Address, type Hash, type Hex, parseEventLogs, type TransactionReceipt } from 'viem';
import { bundleBuyerBytecode } from '../../contracts/generated/bytecode.generated';
import { withGasHeadroom } from '../../shared/chain/gas';
import { readCurveState } from '../../shared/chain/read-curve-state';
import {
  bondingCurveAbi,
  bundleBuyerAbi,
  devSwapRouterAbi,
  launchFactoryAbi,
  launchTokenAbi,
  uniswapV3PoolAbi,
  wrappedStableAbi,
} from './abis';
import type { DevnetClient } from './clients';
import type { LaunchpadDeployment } from './deploy';

const eventAbi = [...launchFactoryAbi, ...launchTokenAbi, ...uniswapV3PoolAbi];
const FAR_FUTURE = 2n ** 40n;
const MAX_UINT256 = 2n ** 256n - 1n;

/** A mined transaction with its decoded launchpad, ERC-20 and pool events. */
export interface Mined {
  hash: Hash;
  receipt: TransactionReceipt;
  events: ReturnType<typeof parseEventLogs<typeof eventAbi>>;
}

/**
 * Launchpad operations against a devnet (senders are impersonated, see createDevnetClient).
 * Each resolves once the transaction is mined and throws if it reverted.
 */
export function createLaunchpadActions(client: DevnetClient, deployment: LaunchpadDeployment) {
  const { factory, router, stable } = deployment.contracts;

  async function mined(hash: Hash): Promise<Mined> {
    // Under automine the receipt exists as soon as the send returns; with a block time it
    // appears within one block.
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 25, retryDelay: 25 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return { hash, receipt, events: parseEventLogs({ abi: eventAbi, logs: receipt.logs }) };
  }

  /** Sends with headroom over the estimate, as the browser does (shared/chain/gas.ts says why). */
  const write: typeof client.writeContract = async (parameters) => {
    const gas = await client.estimateContractGas(
      parameters as Parameters<typeof client.estimateContractGas>[0],
    );
    return client.writeContract({ ...parameters, gas: withGasHeadroom(gas) } as Parameters<
      typeof client.writeContract
    >[0]);
  };

  const curveOf = (token: Address) =>
    client.readContract({ address: factory, abi: launchFactoryAbi, functionName: 'curveOf', args: [token] });

  /** A trade on the token's bonding curve, sent by `account`. */
  async function onCurve(
    token: Address,
    account: Address,
    trade:
      | { functionName: 'buy'; args: readonly [bigint, bigint]; value: bigint }
      | { functionName: 'sell'; args: readonly [bigint, bigint, bigint] },
  ): Promise<Mined> {
    const curve = await curveOf(token);
    // viem cannot pair a union of calls with its ABI's overloads; `trade`'s type checks each.
    const parameters = { address: curve, abi: bondingCurveAbi, account, ...trade } as Parameters<
      typeof write
    >[0];
    return mined(await write(parameters));
  }

  return {
    curveOf,

    async launch(p: {
      creator: Address;
      name: string;
      symbol: string;
      supply: bigint;
      metadataHash: Hex;
      firstBuy?: bigint;
    }) {
      const hash = await write({
        address: factory,
        abi: launchFactoryAbi,
        functionName: 'launch',
        args: [p.name, p.symbol, p.supply, p.metadataHash],
        value: p.firstBuy ?? 0n,
        account: p.creator,
      });
      const result = await mined(hash);
      const launched = result.events.find((e) => e.eventName === 'TokenLaunched');
      if (launched?.eventName !== 'TokenLaunched') throw new Error('no TokenLaunched event');
      return { ...result, token: launched.args.token, curve: launched.args.curve };
    },

    buy: (p: { trader: Address; token: Address; value: bigint; minTokensOut?: bigint; deadline?: bigint }) =>
      onCurve(p.token, p.trader, {
        functionName: 'buy',
        args: [p.minTokensOut ?? 0n, p.deadline ?? FAR_FUTURE],
        value: p.value,
      }),

    sell: (p: {
      trader: Address;
      token: Address;
      amount: bigint;
      minReserveOut?: bigint;
      deadline?: bigint;
    }) =>
      onCurve(p.token, p.trader, {
        functionName: 'sell',
        args: [p.amount, p.minReserveOut ?? 0n, p.deadline ?? FAR_FUTURE],
      }),

    async transfer(p: { from: Address; token: Address; to: Address; amount: bigint }) {
      const hash = await write({
        address: p.token,
        abi: launchTokenAbi,
        functionName: 'transfer',
        args: [p.to, p.amount],
        account: p.from,
      });
      return mined(hash);
    },

    /** Wraps native into the 6-decimal stablecoin. `value` must be whole stable units. */
    async wrap(p: { account: Address; value: bigint }) {
      const hash = await write({
        address: stable,
        abi: wrappedStableAbi,
        functionName: 'deposit',
        value: p.value,
        account: p.account,
      });
      return mined(hash);
    },

    async approveRouter(p: { account: Address; token: Address }) {
      const hash = await write({
        address: p.token,
        abi: launchTokenAbi,
        functionName: 'approve',
        args: [router, MAX_UINT256],
        account: p.account,
      });
      return mined(hash);
    },

    /**
     * Exact-input swap on a graduated pool through the devnet router, paid by `trader`; what it
     * buys goes to `recipient` (the trader itself unless named).
     */
    async swap(p: {
      trader: Address;
      tokenIn: Address;
      tokenOut: Address;
      amountIn: bigint;
      minOut?: bigint;
      deadline?: bigint;
      recipient?: Address;
    }) {
      const hash = await write({
        address: router,
        abi: devSwapRouterAbi,
        functionName: 'exactInputSingle',
        args: [
          p.tokenIn,
          p.tokenOut,
          p.amountIn,
          p.minOut ?? 0n,
          p.recipient ?? p.trader,
          p.deadline ?? FAR_FUTURE,
        ],
        account: p.trader,
      });
      return mined(hash);
    },

    /** Native coin from one wallet to another: the funding trader labels follow (docs/api.md). */
    async sendNative(p: { from: Address; to: Address; value: bigint }) {
      return mined(await client.sendTransaction({ account: p.from, to: p.to, value: p.value }));
    },

    /** Deploys a BundleBuyer (contracts/src/BundleBuyer.sol) from `account`; returns its address. */
    async deployBundleBuyer(account: Address): Promise<Address> {
      const hash = await client.deployContract({
        abi: bundleBuyerAbi,
        bytecode: bundleBuyerBytecode,
        account,
      });
      const { receipt } = await mined(hash);
      if (!receipt.contractAddress) throw new Error(`deployment ${hash} made no contract`);
      return receipt.contractAddress;
    },

    /** One curve buy by the `bundler` contract, paid by `account`, its tokens split among `recipients`. */
    async bundleBuy(p: {
      account: Address;
      bundler: Address;
      token: Address;
      recipients: Address[];
      value: bigint;
    }) {
      return mined(
        await write({
          address: p.bundler,
          abi: bundleBuyerAbi,
          functionName: 'buyFor',
          args: [await curveOf(p.token), p.recipients],
          value: p.value,
          account: p.account,
        }),
      );
    },

    async curveState(token: Address) {
      const curve = await curveOf(token);
      const { graduated, blockNumber: _at, ...state } = await readCurveState(client, curve);
      return { curve, graduated, state };
    },

    balanceOf: (token: Address, owner: Address) =>
      client.readContract({ address: token, abi: launchTokenAbi, functionName: 'balanceOf', args: [owner] }),
  };
}
export type LaunchpadActions = ReturnType<typeof createLaunchpadActions>;
