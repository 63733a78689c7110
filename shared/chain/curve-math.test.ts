import { describe, expect, it } from 'vitest';
import { devnetLaunchCurve } from '../../test/devnet-curve';
import { WAD } from '../units';
import {
  type CurveState,
  curvePrice,
  graduationProgress,
  normalizeStablecoinAmount,
  poolPrice,
  quoteBuy,
  quoteSell,
} from './curve-math';

const launch: CurveState = devnetLaunchCurve;

/** A small seeded generator (mulberry32): the same thousand trades every run. */
function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    chance: (p: number) => next() < p,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
  };
}

describe('curve math', () => {
  it('a buy splits the payment into fees and curve value exactly and moves both reserves by it', () => {
    const trade = quoteBuy(launch, WAD);
    expect(trade.protocolFee).toBe(WAD / 100n);
    expect(trade.creatorFee).toBe(WAD / 200n);
    expect(trade.reserveAmount).toBe(trade.curveValue + trade.protocolFee + trade.creatorFee);
    expect(trade.after.virtualReserve - launch.virtualReserve).toBe(trade.curveValue);
    expect(launch.virtualTokenReserve - trade.after.virtualTokenReserve).toBe(trade.tokenAmount);
    expect(trade.refund).toBe(0n);
    expect(trade.graduates).toBe(false);
  });

  it('rounds in the curve’s favour: k never falls, over a thousand random buys and sells', () => {
    const random = seeded(7);
    let state = launch;
    let k = state.virtualTokenReserve * state.virtualReserve;
    for (let i = 0; i < 1_000; i++) {
      const sellable =
        state.realTokenReserve < launch.realTokenReserve
          ? launch.realTokenReserve - state.realTokenReserve
          : 0n;
      const trade =
        sellable > 0n && random.chance(0.4)
          ? quoteSell(state, (sellable * BigInt(random.int(1, 100))) / 100n)
          : quoteBuy(state, (WAD / 1_000n) * BigInt(random.int(1, 100)));
      if (trade.graduates) break;
      state = trade.after;
      const next = state.virtualTokenReserve * state.virtualReserve;
      expect(next).toBeGreaterThanOrEqual(k);
      k = next;
    }
  });

  it('a buy that would overshoot the threshold takes exactly what fills the curve and refunds the rest', () => {
    const nearlyFull = { ...launch, realReserve: launch.graduationThreshold - WAD };
    const trade = quoteBuy(nearlyFull, 10n * WAD);
    expect(trade.curveValue).toBe(WAD);
    expect(trade.after.realReserve).toBe(launch.graduationThreshold);
    expect(trade.graduates).toBe(true);
    expect(trade.refund).toBe(10n * WAD - trade.reserveAmount);
    expect(trade.reserveAmount).toBe(trade.curveValue + trade.protocolFee + trade.creatorFee);
  });

  it('selling back what was bought returns less than was paid (fees and rounding)', () => {
    const buy = quoteBuy(launch, WAD);
    const sell = quoteSell(buy.after, buy.tokenAmount);
    expect(sell.curveValue).toBeLessThan(buy.reserveAmount);
    expect(sell.after.virtualTokenReserve).toBe(launch.virtualTokenReserve);
  });

  it('prices: the curve spot price, progress capped at 100 %, pool prices both ways round', () => {
    expect(curvePrice(launch.virtualTokenReserve, launch.virtualReserve)).toBe(
      (launch.virtualReserve * WAD) / launch.virtualTokenReserve,
    );
    expect(curvePrice(0n, WAD)).toBe(0n);
    expect(graduationProgress(40n * WAD, 80n * WAD)).toBe(5_000);
    expect(graduationProgress(90n * WAD, 80n * WAD)).toBe(10_000);
    expect(graduationProgress(1n, 0n)).toBe(0);
    expect(normalizeStablecoinAmount(1_000_000n)).toBe(WAD);
    // sqrtPriceX96 = 2^96: one raw token1 per raw token0.
    const one = 2n ** 96n;
    expect(poolPrice(one, true)).toBe(WAD * 10n ** 12n);
    expect(poolPrice(one, false)).toBe(WAD * 10n ** 12n);
    // Token as token0 at 4 stable raw units per raw token; as token1 the inverse, 1/4.
    expect(poolPrice(2n * one, true)).toBe(4n * WAD * 10n ** 12n);
    expect(poolPrice(2n * one, false)).toBe((WAD * 10n ** 12n) / 4n);
    expect(poolPrice(0n, false)).toBe(0n);
  });
});
