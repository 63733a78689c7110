'use client';

import type { Address } from 'viem';
import { useConfig, useReadContract } from 'wagmi';
import { writeContract } from 'wagmi/actions';
import { formatBps } from '@/components/ui/format';
import { bondingCurveAbi, launchFactoryAbi } from '@/contracts/generated/abis.generated';
import type { PublicChain } from '@/shared/chain/public-chain';
import { minedBlock, type Side, type Venue } from './venue';

/**
 * The bonding curve as a venue. The quote is the curve's own (`quoteBuy` / `quoteSell` read from
 * the chain, fees included). Selling needs no approval: the curve may take its own token.
 */
export function useCurveVenue(
  chain: PublicChain,
  p: { token: Address; side: Side; amount: bigint | null },
): Venue {
  const config = useConfig();
  const curve = useReadContract({
    address: chain.factoryAddress,
    abi: launchFactoryAbi,
    functionName: 'curveOf',
    args: [p.token],
  });
  const onCurve = { address: curve.data, abi: bondingCurveAbi } as const;
  const quoting = Boolean(curve.data) && p.amount !== null && p.amount > 0n;
  const quote = useReadContract({
    ...onCurve,
    functionName: p.side === 'buy' ? 'quoteBuy' : 'quoteSell',
    args: [p.amount ?? 0n],
    query: { enabled: quoting },
  });
  const fees = { query: { enabled: Boolean(curve.data) } };
  const protocolFee = useReadContract({ ...onCurve, functionName: 'protocolFeeBps', ...fees });
  const creatorFee = useReadContract({ ...onCurve, functionName: 'creatorFeeBps', ...fees });
  const feeBps = Number(protocolFee.data ?? 0) + Number(creatorFee.data ?? 0);

  return {
    quote: quoting ? quote.data : undefined,
    quoting: quote.isFetching,
    feeNote: `Curve fees ${formatBps(feeBps)}, included.`,
    async send(side, amount, minimumOut, deadline, onStep) {
      const address = curve.data;
      if (!address) throw new Error('The curve of this token is not known yet; try again.');
      onStep('Confirm the trade in your wallet…');
      const hash =
        side === 'buy'
          ? await writeContract(config, {
              address,
              abi: bondingCurveAbi,
              functionName: 'buy',
              args: [minimumOut, deadline],
              value: amount,
              chainId: chain.chainId,
            })
          : await writeContract(config, {
              address,
              abi: bondingCurveAbi,
              functionName: 'sell',
              args: [amount, minimumOut, deadline],
              chainId: chain.chainId,
            });
      onStep('Waiting for the transaction to be mined…');
      return minedBlock(config, chain.chainId, hash);
    },
  };
}
