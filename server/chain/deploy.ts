import type { Address, Hash } from 'viem';
import {
  devSwapRouterBytecode,
  graduatorBytecode,
  launchFactoryBytecode,
  uniswapV3FactoryBytecode,
  wrappedStableBytecode,
} from '../../contracts/generated/bytecode.generated';
import { WAD } from '../../shared/units';
import {
  devSwapRouterAbi,
  graduatorAbi,
  launchFactoryAbi,
  uniswapV3FactoryAbi,
  wrappedStableAbi,
} from './abis';
import type { DevnetClient } from './clients';

export interface LaunchpadParameters {
  virtualTokenBps: number;
  curveSupplyBps: number;
  initialVirtualReserve: bigint;
  graduationThreshold: bigint;
  protocolFeeBps: number;
  creatorFeeBps: number;
  protocolFeeRecipient: Address;
}

/** pump.fun's proportions with reserves sized for a devnet: 30 virtual, graduation at 80. */
export const devnetLaunchpadParameters = (feeRecipient: Address): LaunchpadParameters => ({
  virtualTokenBps: 10_730,
  curveSupplyBps: 7_931,
  initialVirtualReserve: 30n * WAD,
  graduationThreshold: 80n * WAD,
  protocolFeeBps: 100,
  creatorFeeBps: 50,
  protocolFeeRecipient: feeRecipient,
});

export interface LaunchpadDeployment {
  chainId: number;
  startBlock: number;
  contracts: {
    factory: Address;
    graduator: Address;
    stable: Address;
    uniswapV3Factory: Address;
    router: Address;
  };
  parameters: LaunchpadParameters;
}

/**
 * Deploys the launchpad and the official Uniswap V3 factory from `deployer`, and wires them.
 * `startBlock` is the factory's deployment block: nothing the indexer needs exists before it.
 */
export async function deployLaunchpad(
  client: DevnetClient,
  deployer: Address,
  parameters: LaunchpadParameters = devnetLaunchpadParameters(deployer),
): Promise<LaunchpadDeployment> {
  const deployed = async (hash: Hash) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success' || !receipt.contractAddress)
      throw new Error(`deployment ${hash} failed`);
    return { address: receipt.contractAddress, block: Number(receipt.blockNumber) };
  };
  const account = deployer;
  const stable = await deployed(
    await client.deployContract({ abi: wrappedStableAbi, bytecode: wrappedStableBytecode, account }),
  );
  const v3 = await deployed(
    await client.deployContract({ abi: uniswapV3FactoryAbi, bytecode: uniswapV3FactoryBytecode, account }),
  );
  const factory = await deployed(
    await client.deployContract({
      abi: launchFactoryAbi,
      bytecode: launchFactoryBytecode,
      account,
      args: [
        {
          virtualTokenBps: parameters.virtualTokenBps,
          curveSupplyBps: parameters.curveSupplyBps,
          initialVirtualReserve: parameters.initialVirtualReserve,
          graduationThreshold: parameters.graduationThreshold,
          protocolFeeBps: parameters.protocolFeeBps,
          creatorFeeBps: parameters.creatorFeeBps,
          protocolFeeRecipient: parameters.protocolFeeRecipient,
        },
      ],
    }),
  );
  const graduator = await deployed(
    await client.deployContract({
      abi: graduatorAbi,
      bytecode: graduatorBytecode,
      account,
      args: [factory.address, v3.address, stable.address],
    }),
  );
  const wiring = await client.writeContract({
    address: factory.address,
    abi: launchFactoryAbi,
    functionName: 'setGraduator',
    args: [graduator.address],
    account,
  });
  await client.waitForTransactionReceipt({ hash: wiring, pollingInterval: 50 });
  const router = await deployed(
    await client.deployContract({
      abi: devSwapRouterAbi,
      bytecode: devSwapRouterBytecode,
      account,
      args: [v3.address],
    }),
  );
  return {
    chainId: await client.getChainId(),
    startBlock: factory.block,
    contracts: {
      factory: factory.address,
      graduator: graduator.address,
      stable: stable.address,
      uniswapV3Factory: v3.address,
      router: router.address,
    },
    parameters,
  };
}
