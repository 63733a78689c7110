import { describe, expect, it } from 'vitest';
import { devnetLaunchCurve } from '../../test/devnet-curve';
import { WAD } from '../units';
import { type CurveState, quoteBuy } from './curve-math';
import { quoteCurveTrade } from './curve-quote';

const launch: CurveState & { graduated: boolean } = { ...devnetLaunchCurve, graduated: false };
/** 79.9 native already in: 0.1 of room left before the threshold. */
const nearlyFull = { ...launch, ...quoteBuy(launch, 81_100_000_000_000_000_000n).after };
const room = nearlyFull.graduationThreshold - nearlyFull.realReserve;

/** What the contract's first split puts into the curve before any cap (fees rounded down). */
const curveValueOf = (gross: bigint) => gross - (gross * 100n) / 10_000n - (gross * 50n) / 10_000n;
/** The smallest gross whose curve value reaches `target` (the fee floors make it non-monotone by 1). */
function smallestGrossFor(target: bigint): bigint {
  let gross = (target * 10_000n) / 9_850n - 3n;
  while (curveValueOf(gross) < target) gross++;
  return gross;
}

describe('curve quote (the trade panel)', () => {
  it('the fixture sits just under the threshold', () => {
    expect(room).toBeGreaterThan(0n);
    expect(room).toBeLessThan(WAD);
  });

  it('a buy whose curve value stays one wei under the room is neither capped nor graduating', () => {
    const gross = smallestGrossFor(room - 1n);
    const quote = quoteCurveTrade(nearlyFull, 'buy', gross);
    expect(quote).toMatchObject({ ok: true, capped: false, graduates: false, refund: 0n, spent: gross });
  });

  it('a buy whose curve value fills the room exactly graduates without a cap or refund', () => {
    const gross = smallestGrossFor(room);
    expect(curveValueOf(gross)).toBe(room);
    const quote = quoteCurveTrade(nearlyFull, 'buy', gross);
    expect(quote).toMatchObject({ ok: true, capped: false, graduates: true, refund: 0n, spent: gross });
  });

  it('one wei of curve value over the room is capped: it graduates, and the cap may spend all of it', () => {
    const gross = smallestGrossFor(room + 1n);
    const quote = quoteCurveTrade(nearlyFull, 'buy', gross);
    if (!quote.ok) throw new Error(quote.refusal);
    expect(quote.capped).toBe(true);
    expect(quote.graduates).toBe(true);
    expect(quote.spent + quote.refund).toBe(gross);
  });

  it('a buy far over the room spends only what fills it, refunds the rest and returns fewer tokens than the uncapped math', () => {
    const gross = 500n * WAD;
    const quote = quoteCurveTrade(nearlyFull, 'buy', gross);
    if (!quote.ok) throw new Error(quote.refusal);
    expect(quote).toMatchObject({ capped: true, graduates: true });
    // The contract's ceil(room * BPS / (BPS - fees)): the least gross whose curve value covers the room.
    expect(quote.spent).toBe((room * 10_000n + 9_849n) / 9_850n);
    expect(quote.refund).toBe(gross - quote.spent);
    // Tokens for exactly the room, against what the contract's `quoteBuy` view says (no cap).
    const tokensFor = (curveValue: bigint) => {
      const { virtualTokenReserve: t, virtualReserve: r } = nearlyFull;
      return t - (t * r + r + curveValue - 1n) / (r + curveValue);
    };
    expect(quote.out).toBe(tokensFor(room));
    expect(tokensFor(curveValueOf(gross))).toBeGreaterThan(quote.out);
  });

  it('the contract refusals come back as values: graduated, nothing out, more than the curve holds', () => {
    expect(quoteCurveTrade({ ...launch, graduated: true }, 'buy', WAD)).toEqual({
      ok: false,
      refusal: 'graduated',
    });
    expect(quoteCurveTrade(launch, 'buy', 0n)).toEqual({ ok: false, refusal: 'too-small' });
    // One wei into a curve whose tokens cost more than a wei each rounds down to no token at all.
    const dear = { ...launch, virtualTokenReserve: WAD, virtualReserve: 10n * WAD };
    expect(quoteCurveTrade(dear, 'buy', 1n)).toEqual({ ok: false, refusal: 'too-small' });
    const thin = { ...nearlyFull, realTokenReserve: 1n };
    expect(quoteCurveTrade(thin, 'buy', WAD / 100n)).toEqual({
      ok: false,
      refusal: 'insufficient-liquidity',
    });
    // A sale of more tokens than were ever bought would take more than the real reserve.
    expect(quoteCurveTrade(launch, 'sell', 1_000n * WAD)).toEqual({
      ok: false,
      refusal: 'insufficient-liquidity',
    });
  });

  it('a sale quotes the native value after fees, never capped', () => {
    const quote = quoteCurveTrade(nearlyFull, 'sell', 1_000_000n * WAD);
    if (!quote.ok) throw new Error(quote.refusal);
    expect(quote.out).toBeGreaterThan(0n);
    expect(quote).toMatchObject({ capped: false, graduates: false, refund: 0n });
  });
});
