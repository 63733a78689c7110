import { decodeFunctionResult, encodeFunctionData } from 'viem';
import { graduatorAbi, launchFactoryAbi } from '../chain/abis';
import type { ChainConfig } from '../config';
import type { ProjectionContext } from './project/fold';
import type { RpcClient } from './rpc/client';

/**
 * What every fold needs besides the events: the chain's addresses, read once from the factory
 * (its graduator, and the graduator's stablecoin) so that configuration names one address only.
 */
export async function loadProjectionContext(rpc: RpcClient, chain: ChainConfig): Promise<ProjectionContext> {
  const call = (to: string, data: string) => rpc.request<`0x${string}`>('eth_call', [{ to, data }, 'latest']);
  const factory = chain.factoryAddress.toLowerCase();
  const graduator = decodeFunctionResult({
    abi: launchFactoryAbi,
    functionName: 'graduator',
    data: await call(factory, encodeFunctionData({ abi: launchFactoryAbi, functionName: 'graduator' })),
  }).toLowerCase();
  const stable = decodeFunctionResult({
    abi: graduatorAbi,
    functionName: 'stable',
    data: await call(graduator, encodeFunctionData({ abi: graduatorAbi, functionName: 'stable' })),
  }).toLowerCase();
  return {
    chainId: chain.chainId,
    factory,
    graduator,
    stable,
    startBlock: Number(chain.startBlock),
    finalityDepth: chain.finalityDepth,
    ...(chain.labels ? { labels: chain.labels } : {}),
    ...(chain.historySegmentMinEvents ? { historySegmentMinEvents: chain.historySegmentMinEvents } : {}),
  };
}
