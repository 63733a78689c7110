'use client';

import type { Address } from 'viem';
import { useBalance, useConfig, useReadContract } from 'wagmi';
import { waitForTransactionReceipt, writeContract } from 'wagmi/actions';
import { formatBps, formatNative, formatTokenAmount } from '@/components/ui/format';
import { bondingCurveAbi, launchFactoryAbi, launchTokenAbi } from '@/contracts/generated/abis.generated';
import type { PublicChain } from '@/shared/chain/public-chain';
import type { Side, Venue } from './venue';

const ZERO: Address = '0x0000000000000000000000000000000000000000';

/**
 * The bonding curve as a venue. The quote is the curve's own (`quoteBuy` / `quoteSell` read from
 * the chain, fees included). Selling needs no approval: the curve may take its own token.
 */
export function useCurveVenue(
  chain: PublicChain,
  p: { token: Address; symbol: string; account: Address | undefined; side: Side; amount: bigint | null },
): Venue {
  const config = useConfig();
  const curve = useReadContract({
    address: chain.factoryAddress,
    abi: launchFactoryAbi,
    functionName: 'curveOf',
    args: [p.token],
  });
  const quoting = Boolean(curve.data) && p.amount !== null && p.amount > 0n;
  const buyQuote = useReadContract({
    address: curve.data,
    abi: bondingCurveAbi,
    functionName: 'quoteBuy',
    args: [p.amount ?? 0n],
    query: { enabled: quoting && p.side === 'buy' },
  });
  const sellQuote = useReadContract({
    address: curve.data,
    abi: bondingCurveAbi,
    functionName: 'quoteSell',
    args: [p.amount ?? 0n],
    query: { enabled: quoting && p.side === 'sell' },
  });
  const protocolFee = useReadContract({
    address: curve.data,
    abi: bondingCurveAbi,
    functionName: 'protocolFeeBps',
    query: { enabled: Boolean(curve.data) },
  });
  const creatorFee = useReadContract({
    address: curve.data,
    abi: bondingCurveAbi,
    functionName: 'creatorFeeBps',
    query: { enabled: Boolean(curve.data) },
  });
  const tokenBalance = useReadContract({
    address: p.token,
    abi: launchTokenAbi,
    functionName: 'balanceOf',
    args: [p.account ?? ZERO],
    query: { enabled: Boolean(p.account) },
  });
  const nativeBalance = useBalance({ address: p.account, query: { enabled: Boolean(p.account) } });
  const quote = p.side === 'buy' ? buyQuote : sellQuote;
  const feeBps = Number(protocolFee.data ?? 0) + Number(creatorFee.data ?? 0);
  const formatToken = (amount: bigint) => `${formatTokenAmount(amount)} ${p.symbol}`;

  return {
    inputLabel: { buy: 'Pay (native)', sell: `Sell (${p.symbol})` },
    balance: { buy: nativeBalance.data?.value, sell: tokenBalance.data },
    formatInput: (side, amount) => (side === 'buy' ? formatNative(amount) : formatToken(amount)),
    formatOutput: (side, amount) => (side === 'buy' ? formatToken(amount) : formatNative(amount)),
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
      const receipt = await waitForTransactionReceipt(config, { hash, chainId: chain.chainId });
      if (receipt.status !== 'success') throw new Error('The transaction was mined but reverted.');
      return receipt.blockNumber;
    },
    refresh() {
      void tokenBalance.refetch();
      void nativeBalance.refetch();
    },
  };
}
