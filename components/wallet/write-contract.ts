import type {
  Abi,
  ContractFunctionArgs,
  ContractFunctionName,
  EstimateContractGasParameters,
  Hash,
} from 'viem';
import { estimateContractGas } from 'viem/actions';
import type { Config } from 'wagmi';
import { getConnectorClient, type WriteContractParameters, writeContract } from 'wagmi/actions';
import { withGasHeadroom } from '@/shared/chain/gas';

/**
 * wagmi's `writeContract` with the gas limit set by us: the estimate (on the app's RPC, from the
 * connected account) plus headroom, see {@link withGasHeadroom}. Left to itself the wallet sends
 * the bare estimate (the devnet test wallet always, browser wallets often). A revert found by
 * the estimate is thrown decoded against `abi`, as `writeContract` would throw it.
 */
export async function writeContractWithHeadroom<
  const abi extends Abi,
  functionName extends ContractFunctionName<abi, 'nonpayable' | 'payable'>,
  args extends ContractFunctionArgs<abi, 'nonpayable' | 'payable', functionName>,
>(
  config: Config,
  parameters: WriteContractParameters<abi, functionName, args, Config> & { chainId: number },
): Promise<Hash> {
  const { account } = await getConnectorClient(config, { chainId: parameters.chainId });
  const estimate = await estimateContractGas(config.getClient({ chainId: parameters.chainId }), {
    ...parameters,
    account,
  } as EstimateContractGasParameters);
  return writeContract(config, { ...parameters, gas: withGasHeadroom(estimate) } as WriteContractParameters);
}
