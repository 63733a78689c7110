import type { Address, PublicClient } from 'viem';
import { bondingCurveAbi } from '../../contracts/generated/abis.generated';
import type { CurveState } from './curve-math';

export type ReadCurveStateReturnType = CurveState & { graduated: boolean; blockNumber: bigint };

/**
 * A bonding curve's reserves, threshold, fees and graduation flag, every value read at the same
 * block: a quote mixing reserves from two blocks matches neither. The chains we serve have no
 * Multicall3 we can count on (anvil has none), so these are single calls pinned to one block.
 * @example
 * const state = await readCurveState(client, curve);
 * const quote = quoteCurveTrade(state, 'buy', value);
 */
export async function readCurveState(
  client: Pick<PublicClient, 'getBlockNumber' | 'readContract'>,
  curve: Address,
): Promise<ReadCurveStateReturnType> {
  const blockNumber = await client.getBlockNumber({ cacheTime: 0 });
  const at = { address: curve, abi: bondingCurveAbi, blockNumber } as const;
  const [
    virtualTokenReserve,
    virtualReserve,
    realTokenReserve,
    realReserve,
    graduationThreshold,
    protocolFeeBps,
    creatorFeeBps,
    graduated,
  ] = await Promise.all([
    client.readContract({ ...at, functionName: 'virtualTokenReserve' }),
    client.readContract({ ...at, functionName: 'virtualReserve' }),
    client.readContract({ ...at, functionName: 'realTokenReserve' }),
    client.readContract({ ...at, functionName: 'realReserve' }),
    client.readContract({ ...at, functionName: 'graduationThreshold' }),
    client.readContract({ ...at, functionName: 'protocolFeeBps' }),
    client.readContract({ ...at, functionName: 'creatorFeeBps' }),
    client.readContract({ ...at, functionName: 'graduated' }),
  ]);
  return {
    virtualTokenReserve,
    virtualReserve,
    realTokenReserve,
    realReserve,
    graduationThreshold,
    protocolFeeBps: BigInt(protocolFeeBps),
    creatorFeeBps: BigInt(creatorFeeBps),
    graduated,
    blockNumber,
  };
}
