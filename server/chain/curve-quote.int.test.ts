import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { BPS, type CurveState } from '../../shared/chain/curve-math';
import { quoteCurveTrade } from '../../shared/chain/curve-quote';
import { readCurveState } from '../../shared/chain/read-curve-state';
import { fundedAddress, type TestChain, tradeEvent } from '../../test/chain';
import { testChainForTests } from '../../test/chain-hooks';
import { bondingCurveAbi } from './abis';

const ether = 10n ** 18n;
let chain: TestChain;
let creator: Address;
let launches = 0;

testChainForTests((started) => {
  ({ chain, creator } = started);
}, 180_000);

/** The contract's first split of a buy: what enters the curve before any cap. */
function curveValueOf(state: CurveState, gross: bigint): bigint {
  return gross - (gross * state.protocolFeeBps) / BPS - (gross * state.creatorFeeBps) / BPS;
}

/** The least gross whose curve value reaches `target` (fee floors make the split step by 0 or ±1). */
function smallestGrossFor(state: CurveState, target: bigint): bigint {
  let gross = (target * BPS) / (BPS - state.protocolFeeBps - state.creatorFeeBps) - 3n;
  while (curveValueOf(state, gross) < target) gross++;
  return gross;
}

/** A fresh token whose curve holds all but 0.1 native of its graduation threshold. */
async function nearlyGraduated(trader: Address) {
  launches++;
  const { token, curve } = await chain.actions.launch({
    creator,
    name: `Cap Edge ${launches}`,
    symbol: `CAP${launches}`,
    supply: 1_000_000_000n * ether,
    metadataHash: `0x${launches.toString(16).padStart(64, '0')}`,
  });
  const state = await readCurveState(chain.client, curve);
  await chain.actions.buy({
    trader,
    token,
    value: smallestGrossFor(state, state.graduationThreshold - ether / 10n),
  });
  return { token, curve };
}

describe('the trade panel’s curve quote against the executed buy, at the graduation cap’s edges', () => {
  const edges = [
    { name: 'curve value one wei under the room', over: -1n, capped: false, graduates: false },
    { name: 'curve value exactly the room', over: 0n, capped: false, graduates: true },
    { name: 'curve value one wei over the room', over: 1n, capped: true, graduates: true },
    { name: '500 native, far over the room', over: null, capped: true, graduates: true },
  ] as const;

  for (const edge of edges) {
    it(`${edge.name}: tokens, spent and refund as quoted, with the quote itself as the minimum out`, async () => {
      const trader = await fundedAddress(chain, 10 + launches);
      const { token, curve } = await nearlyGraduated(trader);
      const state = await readCurveState(chain.client, curve);
      const room = state.graduationThreshold - state.realReserve;
      expect(room).toBe(ether / 10n);
      const value = edge.over === null ? 500n * ether : smallestGrossFor(state, room + edge.over);
      const quote = quoteCurveTrade(state, 'buy', value);
      if (!quote.ok) throw new Error(quote.refusal);
      expect({ capped: quote.capped, graduates: quote.graduates }).toEqual({
        capped: edge.capped,
        graduates: edge.graduates,
      });

      // The contract's view ignores the cap: above the room it promises more than the buy returns,
      // and a minimum out taken from it reverts the buy.
      const view = await chain.client.readContract({
        address: curve,
        abi: bondingCurveAbi,
        functionName: 'quoteBuy',
        args: [value],
      });
      if (edge.capped) {
        expect(view).toBeGreaterThan(quote.out);
        await expect(
          chain.client.simulateContract({
            address: curve,
            abi: bondingCurveAbi,
            functionName: 'buy',
            args: [view, 2n ** 40n],
            value,
            account: trader,
          }),
        ).rejects.toThrow(/Slippage/);
      } else {
        expect(view).toBe(quote.out);
      }

      const before = await chain.client.getBalance({ address: trader });
      const mined = await chain.actions.buy({ trader, token, value, minTokensOut: quote.out });
      const trade = tradeEvent(mined);
      expect(trade.tokenAmount).toBe(quote.out);
      expect(trade.reserveAmount).toBe(quote.spent);
      const gas = mined.receipt.gasUsed * mined.receipt.effectiveGasPrice;
      // Only what was spent left the wallet: the refund came back in the same transaction.
      expect(before - (await chain.client.getBalance({ address: trader }))).toBe(quote.spent + gas);
      expect(quote.spent + quote.refund).toBe(value);
      expect(mined.events.some((e) => e.eventName === 'Graduated')).toBe(edge.graduates);
      expect((await readCurveState(chain.client, curve)).graduated).toBe(edge.graduates);
    });
  }

  it('a sale on the nearly full curve returns what the quote says, and a graduated curve is refused', async () => {
    const trader = await fundedAddress(chain, 90);
    const { token, curve } = await nearlyGraduated(trader);
    const held = await chain.actions.balanceOf(token, trader);
    const state = await readCurveState(chain.client, curve);
    const quote = quoteCurveTrade(state, 'sell', held / 3n);
    if (!quote.ok) throw new Error(quote.refusal);
    const mined = await chain.actions.sell({ trader, token, amount: held / 3n, minReserveOut: quote.out });
    expect(tradeEvent(mined).curveValue).toBe(quote.out);

    await chain.actions.buy({ trader, token, value: 500n * ether });
    const after = await readCurveState(chain.client, curve);
    expect(quoteCurveTrade(after, 'buy', ether)).toEqual({ ok: false, refusal: 'graduated' });
  });
});
