import fc from 'fast-check';
import type { Address, ContractFunctionParameters } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  bondingCurveAbi,
  devSwapRouterAbi,
  graduatorAbi,
  launchFactoryAbi,
  uniswapV3FactoryAbi,
  wrappedStableAbi,
} from '../server/chain/abis';
import type { Mined } from '../server/chain/launchpad-actions';
import { type CurveState, curvePrice, poolPrice, quoteBuy, quoteSell } from '../shared/chain/curve-math';
import { fundedAddress, type TestChain, tradeEvent } from '../test/chain';
import { testChainForTests } from '../test/chain-hooks';

const ether = 10n ** 18n;
const SUPPLY = 1_000_000_000n * ether;
const hash32 = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

let chain: TestChain;
let creator: Address;
let launches = 0;

testChainForTests((started) => {
  ({ chain, creator } = started);
});

async function launchToken(firstBuy = 0n) {
  launches++;
  return chain.actions.launch({
    creator,
    name: `Curve Test ${launches}`,
    symbol: `CT${launches}`,
    supply: SUPPLY,
    metadataHash: hash32(launches),
    firstBuy,
  });
}

function stateFromTrade(args: ReturnType<typeof tradeEvent>, before: CurveState): CurveState {
  return {
    ...before,
    virtualTokenReserve: args.virtualTokenReserve,
    virtualReserve: args.virtualReserve,
    realTokenReserve: args.realTokenReserve,
    realReserve: args.realReserve,
  };
}

async function nativeBalance(address: Address) {
  return chain.client.getBalance({ address });
}

describe('bonding curve on anvil', () => {
  it('property: random buy/sell sequences match the TypeScript mirror, fees add up, reserves stay backed', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('buy' as const), milli: fc.integer({ min: 1, max: 30_000 }) }),
            fc.record({ kind: fc.constant('sell' as const), fraction: fc.integer({ min: 1, max: 100 }) }),
          ),
          { minLength: 1, maxLength: 10 },
        ),
        async (operations) => {
          run++;
          const trader = await fundedAddress(chain, 100 + run);
          const { token, curve } = await launchToken();
          let { state } = await chain.actions.curveState(token);
          const initialVirtualReserve = state.virtualReserve;
          let paidIn = 0n;
          let paidOut = 0n;
          for (const op of operations) {
            const held = await chain.actions.balanceOf(token, trader);
            if (op.kind === 'sell' && held === 0n) continue;
            let expected: ReturnType<typeof quoteBuy>;
            let mined: Mined;
            if (op.kind === 'buy') {
              const value = (BigInt(op.milli) * ether) / 1000n;
              expected = quoteBuy(state, value);
              mined = await chain.actions.buy({ trader, token, value });
              paidIn += expected.reserveAmount;
            } else {
              const amount = (held * BigInt(op.fraction)) / 100n || held;
              expected = quoteSell(state, amount);
              mined = await chain.actions.sell({ trader, token, amount });
              paidOut += expected.curveValue;
            }
            const event = tradeEvent(mined);
            expect(event.tokenAmount).toBe(expected.tokenAmount);
            expect(event.reserveAmount).toBe(expected.reserveAmount);
            expect(event.curveValue).toBe(expected.curveValue);
            expect(event.protocolFee).toBe(expected.protocolFee);
            expect(event.creatorFee).toBe(expected.creatorFee);
            // Fees add up: every wei of the gross amount is either curve value or a fee.
            expect(event.reserveAmount).toBe(event.curveValue + event.protocolFee + event.creatorFee);
            state = stateFromTrade(event, state);
            expect(state).toEqual(expected.after);
            expect(state.realReserve).toBeGreaterThanOrEqual(0n);
            expect(state.virtualReserve - state.realReserve).toBe(initialVirtualReserve);
            if (expected.graduates) break;
          }
          const after = await chain.actions.curveState(token);
          if (!after.graduated) {
            // Backed: the curve holds its real reserve plus every unclaimed fee, nothing less.
            const fees =
              (await chain.client.readContract({
                address: curve,
                abi: bondingCurveAbi,
                functionName: 'protocolFeesAccrued',
              })) +
              (await chain.client.readContract({
                address: curve,
                abi: bondingCurveAbi,
                functionName: 'creatorFeesAccrued',
              }));
            expect(await nativeBalance(curve)).toBe(after.state.realReserve + fees);
            // No value from nothing: selling everything back never returns more than was paid.
            const held = await chain.actions.balanceOf(token, trader);
            if (held > 0n)
              paidOut += tradeEvent(await chain.actions.sell({ trader, token, amount: held })).curveValue;
            expect(paidOut).toBeLessThanOrEqual(paidIn);
          }
        },
      ),
      { numRuns: 15, seed: 20261122 },
    );
  });

  it('graduates exactly at the threshold, refunds the overshoot and stops curve trading', async () => {
    const trader = await fundedAddress(chain, 2);
    const { token } = await launchToken(ether);
    const before = await chain.actions.curveState(token);
    const balanceBefore = await nativeBalance(trader);
    const value = 500n * ether;
    const mined = await chain.actions.buy({ trader, token, value });
    const trade = tradeEvent(mined);
    expect(trade.realReserve).toBe(before.state.graduationThreshold);
    const expected = quoteBuy(before.state, value);
    expect(expected.graduates).toBe(true);
    expect(trade.reserveAmount).toBe(expected.reserveAmount);
    const gas = mined.receipt.gasUsed * mined.receipt.effectiveGasPrice;
    expect(balanceBefore - (await nativeBalance(trader))).toBe(trade.reserveAmount + gas);
    const graduated = mined.events.find((e) => e.eventName === 'Graduated');
    expect(graduated?.eventName).toBe('Graduated');
    const after = await chain.actions.curveState(token);
    expect(after.graduated).toBe(true);
    await expect(
      chain.client.simulateContract({
        address: after.curve,
        abi: bondingCurveAbi,
        functionName: 'buy',
        args: [0n, 2n ** 40n],
        value: ether,
        account: trader,
      }),
    ).rejects.toThrow(/AlreadyGraduated/);
  });

  it('opens the pool at the curve final price (within one tick spacing) with locked full-range liquidity', async () => {
    const trader = await fundedAddress(chain, 3);
    const { token } = await launchToken();
    const mined = await chain.actions.buy({ trader, token, value: 500n * ether });
    const trade = tradeEvent(mined);
    const graduated = mined.events.find((e) => e.eventName === 'Graduated');
    if (graduated?.eventName !== 'Graduated') throw new Error('did not graduate');
    const { pool, sqrtPriceX96, tokenAmount, stableAmount, reserveAmount, liquidity } = graduated.args;
    const { stable, uniswapV3Factory, graduator } = chain.deployment.contracts;
    expect(
      await chain.client.readContract({
        address: uniswapV3Factory,
        abi: uniswapV3FactoryAbi,
        functionName: 'getPool',
        args: [token, stable, 3000],
      }),
    ).toBe(pool);
    const curveFinal = curvePrice(trade.virtualTokenReserve, trade.virtualReserve);
    const poolSpot = poolPrice(sqrtPriceX96, BigInt(token) < BigInt(stable));
    const oneTickSpacing = 1.0001 ** 60;
    const ratio = Number(poolSpot) / Number(curveFinal);
    expect(ratio).toBeGreaterThan(1 / oneTickSpacing);
    expect(ratio).toBeLessThan(oneTickSpacing);
    // Stable amounts: 6-decimal units, and reserveAmount is the same value in native units.
    expect(reserveAmount).toBe(stableAmount * 10n ** 12n);
    expect(stableAmount).toBeGreaterThan(0n);
    expect(tokenAmount).toBeGreaterThan(0n);
    expect(liquidity).toBeGreaterThan(0n);
    const positionKey = await chain.client.readContract({
      address: pool,
      abi: [
        {
          type: 'function',
          name: 'liquidity',
          inputs: [],
          outputs: [{ type: 'uint128' }],
          stateMutability: 'view',
        },
      ] as const,
      functionName: 'liquidity',
    });
    expect(positionKey).toBe(liquidity);
    // The graduator owns the position and has no way to remove it.
    const graduatorFunctions = graduatorAbi
      .filter((item) => item.type === 'function')
      .map((item) => item.name);
    expect(graduatorFunctions).not.toContain('burn');
    expect(graduatorFunctions).not.toContain('collect');
    expect(graduator).toMatch(/^0x/);
  });

  it('swaps on a graduated pool in 6-decimal stablecoin units, both ways', async () => {
    const trader = await fundedAddress(chain, 4);
    const { token } = await launchToken();
    await chain.actions.buy({ trader, token, value: 500n * ether });
    const { stable } = chain.deployment.contracts;
    expect(
      await chain.client.readContract({ address: stable, abi: wrappedStableAbi, functionName: 'decimals' }),
    ).toBe(6);
    await chain.actions.wrap({ account: trader, value: 3n * ether });
    expect(
      await chain.client.readContract({
        address: stable,
        abi: wrappedStableAbi,
        functionName: 'balanceOf',
        args: [trader],
      }),
    ).toBe(3_000_000n);
    await chain.actions.approveRouter({ account: trader, token: stable });
    const heldBeforeSwap = await chain.actions.balanceOf(token, trader);
    const buy = await chain.actions.swap({ trader, tokenIn: stable, tokenOut: token, amountIn: 1_500_000n });
    const swap = buy.events.find((e) => e.eventName === 'Swap');
    if (swap?.eventName !== 'Swap') throw new Error('no Swap');
    const tokenIsZero = BigInt(token) < BigInt(stable);
    const stableDelta = tokenIsZero ? swap.args.amount1 : swap.args.amount0;
    expect(stableDelta).toBe(1_500_000n);
    expect(swap.args.recipient.toLowerCase()).toBe(trader.toLowerCase());
    await chain.actions.approveRouter({ account: trader, token });
    const received = (await chain.actions.balanceOf(token, trader)) - heldBeforeSwap;
    expect(received).toBe(-(tokenIsZero ? swap.args.amount0 : swap.args.amount1));
    const sell = await chain.actions.swap({
      trader,
      tokenIn: token,
      tokenOut: stable,
      amountIn: received / 2n,
    });
    const back = sell.events.find((e) => e.eventName === 'Swap');
    if (back?.eventName !== 'Swap') throw new Error('no Swap');
    const stableOut = -(tokenIsZero ? back.args.amount1 : back.args.amount0);
    expect(stableOut).toBeGreaterThan(0n);
    expect(stableOut).toBeLessThan(1_500_000n);
  });

  it('reverts on slippage and on an expired deadline', async () => {
    const trader = await fundedAddress(chain, 5);
    const { token, curve } = await launchToken();
    const { state } = await chain.actions.curveState(token);
    const quote = quoteBuy(state, ether);
    const call = (minOut: bigint, deadline: bigint) =>
      chain.client.simulateContract({
        address: curve,
        abi: bondingCurveAbi,
        functionName: 'buy',
        args: [minOut, deadline],
        value: ether,
        account: trader,
      });
    await expect(call(quote.tokenAmount + 1n, 2n ** 40n)).rejects.toThrow(/Slippage/);
    const block = await chain.client.getBlock();
    await expect(call(0n, block.timestamp - 1n)).rejects.toThrow(/Expired/);
    await chain.actions.buy({ trader, token, value: ether, minTokensOut: quote.tokenAmount });
    const held = await chain.actions.balanceOf(token, trader);
    const { state: afterBuy } = await chain.actions.curveState(token);
    const sellQuote = quoteSell(afterBuy, held);
    await expect(
      chain.client.simulateContract({
        address: curve,
        abi: bondingCurveAbi,
        functionName: 'sell',
        args: [held, sellQuote.curveValue + 1n, 2n ** 40n],
        account: trader,
      }),
    ).rejects.toThrow(/Slippage/);
    const router = chain.deployment.contracts.router;
    await expect(
      chain.client.simulateContract({
        address: router,
        abi: devSwapRouterAbi,
        functionName: 'exactInputSingle',
        args: [chain.deployment.contracts.stable, token, 1n, 0n, trader, block.timestamp - 1n],
        account: trader,
      }),
    ).rejects.toThrow(/Expired/);
  });

  it('rejects unauthorized callbacks and event injection', async () => {
    const attacker = await fundedAddress(chain, 6);
    const { router, graduator, factory, stable } = chain.deployment.contracts;
    const { token } = await launchToken();
    const refused: [ContractFunctionParameters & { value?: bigint }, RegExp][] = [
      [
        {
          address: router,
          abi: devSwapRouterAbi,
          functionName: 'uniswapV3SwapCallback',
          args: [
            1000n,
            0n,
            `0x${attacker.slice(2).padStart(64, '0')}${stable.slice(2).padStart(64, '0')}${token.slice(2).padStart(64, '0')}`,
          ],
        },
        /UnauthorizedCallback/,
      ],
      [
        {
          address: graduator,
          abi: graduatorAbi,
          functionName: 'uniswapV3MintCallback',
          args: [1n, 1n, `0x${token.slice(2).padStart(64, '0')}`],
        },
        /UnauthorizedCallback/,
      ],
      [
        {
          address: graduator,
          abi: graduatorAbi,
          functionName: 'graduate',
          args: [token, 1n, 1n],
          value: ether,
        },
        /OnlyCurve/,
      ],
      [
        {
          address: factory,
          abi: launchFactoryAbi,
          functionName: 'recordTrade',
          args: [
            {
              token,
              trader: attacker,
              isBuy: true,
              tokenAmount: 1n,
              reserveAmount: 1n,
              curveValue: 1n,
              protocolFee: 0n,
              creatorFee: 0n,
              virtualTokenReserve: 1n,
              virtualReserve: 1n,
              realTokenReserve: 1n,
              realReserve: 1n,
            },
          ],
        },
        /OnlyCurve/,
      ],
    ];
    for (const [request, error] of refused)
      await expect(
        chain.client.simulateContract({ ...request, account: attacker }),
        request.functionName,
      ).rejects.toThrow(error);
  });

  it('validates launch parameters on chain: name and symbol byte limits, supply bounds', async () => {
    const call = (name: string, symbol: string, supply: bigint) =>
      chain.client.simulateContract({
        address: chain.deployment.contracts.factory,
        abi: launchFactoryAbi,
        functionName: 'launch',
        args: [name, symbol, supply, hash32(1)],
        account: creator,
      });
    await expect(call('x'.repeat(65), 'OK', SUPPLY)).rejects.toThrow(/InvalidName/);
    await expect(call('é'.repeat(33), 'OK', SUPPLY)).rejects.toThrow(/InvalidName/);
    await expect(call('', 'OK', SUPPLY)).rejects.toThrow(/InvalidName/);
    await expect(call('Ok', 'S'.repeat(17), SUPPLY)).rejects.toThrow(/InvalidSymbol/);
    await expect(call('Ok', 'OK', 999n * ether)).rejects.toThrow(/InvalidSupply/);
    await expect(call('Ok', 'OK', 10n ** 33n + 1n)).rejects.toThrow(/InvalidSupply/);
    const ok = await call('x'.repeat(64), 'S'.repeat(16), SUPPLY);
    expect(ok.result[0]).toMatch(/^0x/);
  });
});
