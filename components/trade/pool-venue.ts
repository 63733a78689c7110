'use client';

import { type Address, maxUint256 } from 'viem';
import { useConfig, useReadContract } from 'wagmi';
import { writeContractWithHeadroom } from '@/components/wallet/write-contract';
import {
  devSwapRouterAbi,
  launchTokenAbi,
  uniswapV3PoolAbi,
  wrappedStableAbi,
} from '@/contracts/generated/abis.generated';
import { STABLE_NORMALIZATION } from '@/shared/chain/curve-math';
import type { PublicChain } from '@/shared/chain/public-chain';
import { quoteExactInput } from '@/shared/trade/pool-quote';
import { minedBlock, type Side, type Venue } from './venue';

const ZERO: Address = '0x0000000000000000000000000000000000000000';

/**
 * A graduated token's Uniswap V3 pool as a venue, traded through the configured router
 * (`exactInputSingle`). The pool pairs the token with the chain's 6-decimal stablecoin: a buy pays
 * native value, wrapped into the stablecoin as far as the wallet's stablecoin balance falls short;
 * a sale returns the stablecoin. The quote follows from the pool's price and liquidity
 * (shared/trade/pool-quote.ts). Each token the router pulls is approved once, when needed.
 */
export function usePoolVenue(
  chain: PublicChain,
  p: {
    token: Address;
    pool: Address;
    router: Address;
    account: Address | undefined;
    side: Side;
    amount: bigint | null;
  },
): Venue {
  const config = useConfig();
  const read = { address: p.pool, abi: uniswapV3PoolAbi } as const;
  const token0 = useReadContract({ ...read, functionName: 'token0' });
  const token1 = useReadContract({ ...read, functionName: 'token1' });
  const slot0 = useReadContract({ ...read, functionName: 'slot0', query: { refetchInterval: 2_000 } });
  const liquidity = useReadContract({
    ...read,
    functionName: 'liquidity',
    query: { refetchInterval: 2_000 },
  });
  const fee = useReadContract({ ...read, functionName: 'fee' });
  const token = p.token.toLowerCase();
  const stable = (token0.data?.toLowerCase() === token ? token1.data : token0.data) as Address | undefined;
  const owner = p.account ?? ZERO;
  const held = { abi: launchTokenAbi, functionName: 'balanceOf', args: [owner] } as const;
  const approved = { abi: launchTokenAbi, functionName: 'allowance', args: [owner, p.router] } as const;
  const enabled = (address: Address | undefined) => ({ enabled: Boolean(address && p.account) });
  const stableBalance = useReadContract({ ...held, address: stable, query: enabled(stable) });
  const tokenAllowance = useReadContract({ ...approved, address: p.token, query: enabled(p.token) });
  const stableAllowance = useReadContract({ ...approved, address: stable, query: enabled(stable) });

  /** What goes into the pool: stablecoin units for a buy (native value / 10^12), tokens for a sale. */
  const amountIn = (side: Side, amount: bigint) => (side === 'buy' ? amount / STABLE_NORMALIZATION : amount);
  let quote: bigint | undefined;
  if (
    stable &&
    slot0.data &&
    liquidity.data !== undefined &&
    fee.data !== undefined &&
    p.amount &&
    p.amount > 0n
  ) {
    const tokenIn = p.side === 'buy' ? stable : p.token;
    const tokenOut = p.side === 'buy' ? p.token : stable;
    quote = quoteExactInput(
      { sqrtPriceX96: slot0.data[0], liquidity: liquidity.data, feePips: Number(fee.data) },
      BigInt(tokenIn) < BigInt(tokenOut),
      amountIn(p.side, p.amount),
    );
  }
  return {
    // A sale returns stablecoin units (6 decimals); the form shows native value.
    quote: quote !== undefined && p.side === 'sell' ? quote * STABLE_NORMALIZATION : quote,
    quoting: slot0.isFetching && quote === undefined,
    feeNote: `Pool fee ${fee.data === undefined ? '…' : `${Number(fee.data) / 10_000}%`}, included; price impact included.`,
    async send(side, amount, minimumOut, deadline, onStep) {
      if (!stable) throw new Error('The pool is not read yet; try again.');
      const account = p.account;
      if (!account) throw new Error('Connect a wallet first.');
      const chainId = chain.chainId;
      const inToken = side === 'buy' ? stable : p.token;
      const units = amountIn(side, amount);
      if (units === 0n) throw new Error('The amount is too small to trade.');
      // The least a sale may return, in the pool's stablecoin units (the quote was in native).
      const leastOut = side === 'sell' ? minimumOut / STABLE_NORMALIZATION : minimumOut;
      if (side === 'buy') {
        const short = units - (stableBalance.data ?? 0n);
        if (short > 0n) {
          onStep('Confirm wrapping native value into the pool’s stablecoin…');
          await minedBlock(
            config,
            chainId,
            await writeContractWithHeadroom(config, {
              address: stable,
              abi: wrappedStableAbi,
              functionName: 'deposit',
              value: short * STABLE_NORMALIZATION,
              chainId,
            }),
            'wrap',
          );
        }
      }
      const allowance = side === 'buy' ? stableAllowance.data : tokenAllowance.data;
      if ((allowance ?? 0n) < units) {
        onStep('Confirm the approval for the swap router…');
        await minedBlock(
          config,
          chainId,
          await writeContractWithHeadroom(config, {
            address: inToken,
            abi: launchTokenAbi,
            functionName: 'approve',
            args: [p.router, maxUint256],
            chainId,
          }),
          'approval',
        );
      }
      onStep('Confirm the swap in your wallet…');
      const hash = await writeContractWithHeadroom(config, {
        address: p.router,
        abi: devSwapRouterAbi,
        functionName: 'exactInputSingle',
        args: [inToken, side === 'buy' ? p.token : stable, units, leastOut, account, deadline],
        chainId,
      });
      onStep('Waiting for the swap to be mined…');
      return minedBlock(config, chainId, hash);
    },
    refresh() {
      for (const query of [stableBalance, tokenAllowance, stableAllowance]) void query.refetch();
    },
  };
}
