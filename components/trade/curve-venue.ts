'use client';

import { useQuery } from '@tanstack/react-query';
import type { Address } from 'viem';
import { useConfig, usePublicClient, useReadContract } from 'wagmi';
import { formatBps, formatNative } from '@/components/ui/format';
import { writeContractWithHeadroom } from '@/components/wallet/write-contract';
import { bondingCurveAbi, launchFactoryAbi } from '@/contracts/generated/abis.generated';
import { type CurveRefusal, quoteCurveTrade } from '@/shared/chain/curve-quote';
import type { PublicChain } from '@/shared/chain/public-chain';
import { readCurveState } from '@/shared/chain/read-curve-state';
import { minedBlock, type Side, type Venue } from './venue';

const STATE_MAX_AGE_MS = 10_000;

const refusals: Record<CurveRefusal, string> = {
  graduated: 'This token has just graduated: reload the page to trade it on its Uniswap V3 pool.',
  'too-small': 'This amount is too small to trade on the curve.',
  'insufficient-liquidity': 'The curve does not hold enough to fill this trade.',
};

/**
 * The bonding curve as a venue. Quotes come from the curve's state (read at one block, again
 * every two seconds while an amount is entered) through the contract's own arithmetic (shared/chain/curve-quote.ts), not
 * from its `quoteBuy` view: the view ignores the graduation cap, and a minimum out taken from it
 * made the buy that graduates a token revert. Selling needs no approval: the curve may take its
 * own token.
 */
export function useCurveVenue(
  chain: PublicChain,
  p: { token: Address; side: Side; amount: bigint | null },
): Venue {
  const config = useConfig();
  const client = usePublicClient({ chainId: chain.chainId });
  const curve = useReadContract({
    address: chain.factoryAddress,
    abi: launchFactoryAbi,
    functionName: 'curveOf',
    args: [p.token],
  });
  const address = curve.data;
  const quoting = p.amount !== null && p.amount > 0n;
  // Every reader's page carries the panel: the curve is polled only while an amount is entered.
  const state = useQuery({
    queryKey: ['curve-state', chain.chainId, address],
    queryFn: () => {
      if (!client || !address) throw new Error('no curve to read');
      return readCurveState(client, address);
    },
    enabled: Boolean(client && address) && quoting,
    refetchInterval: 2_000,
  });
  // State left from an earlier amount may be minutes old: no quote from it until it is read again.
  const current = state.data && Date.now() - state.dataUpdatedAt < STATE_MAX_AGE_MS ? state.data : undefined;
  const feeBps = current ? Number(current.protocolFeeBps + current.creatorFeeBps) : 0;
  const quote = quoting && current ? quoteCurveTrade(current, p.side, p.amount ?? 0n) : undefined;

  return {
    quote: quote?.ok ? quote.out : undefined,
    quoting: quoting && !current && !state.isError,
    feeNote: `Curve fees ${formatBps(feeBps)}, included.`,
    quoteNote:
      quote?.ok && quote.capped
        ? `This buy reaches the graduation threshold and graduates the token: only ${formatNative(quote.spent)} is spent${quote.refund > 0n ? ` and the other ${formatNative(quote.refund)} is refunded in the same transaction` : ''}.`
        : quote?.ok && quote.graduates
          ? 'This buy reaches the graduation threshold and graduates the token.'
          : undefined,
    quoteProblem:
      quote && !quote.ok
        ? refusals[quote.refusal]
        : quoting && state.isError && !current
          ? 'Could not read the curve’s state from the chain; trying again.'
          : undefined,
    async send(side, amount, minimumOut, deadline, onStep) {
      if (!address) throw new Error('The curve of this token is not known yet; try again.');
      onStep('Confirm the trade in your wallet…');
      const hash =
        side === 'buy'
          ? await writeContractWithHeadroom(config, {
              address,
              abi: bondingCurveAbi,
              functionName: 'buy',
              args: [minimumOut, deadline],
              value: amount,
              chainId: chain.chainId,
            })
          : await writeContractWithHeadroom(config, {
              address,
              abi: bondingCurveAbi,
              functionName: 'sell',
              args: [amount, minimumOut, deadline],
              chainId: chain.chainId,
            });
      onStep('Waiting for the transaction to be mined…');
      return minedBlock(config, chain.chainId, hash);
    },
    refresh() {
      void state.refetch();
    },
  };
}
