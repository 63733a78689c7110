/**
 * What a trade on the bonding curve would do now, in the words a trade form needs, computed with
 * the curve's own arithmetic (curve-math.ts mirrors BondingCurve.sol). The contract's `quoteBuy`
 * view ignores the graduation cap; `_buy` does not: a buy whose curve value would pass the
 * threshold fills exactly to it, spends only the smallest gross that covers it and refunds the
 * rest. A minimum out taken from the view would then exceed what the capped buy returns and the
 * buy would revert with `Slippage`, so the form quotes with this instead.
 */

import { BPS, type CurveState, quoteBuy, quoteSell } from './curve-math';

/** Why the curve would refuse the trade outright (the contract's own checks, in its order). */
export type CurveRefusal =
  /** The curve has graduated: the token trades on its pool. */
  | 'graduated'
  /** The amount is too small to move a single base unit out (`ZeroAmount`). */
  | 'too-small'
  /** More than the curve holds would leave it (`InsufficientLiquidity`). */
  | 'insufficient-liquidity';

export type CurveQuote =
  | {
      ok: true;
      /** Tokens for a buy, native base units after fees for a sale. */
      out: bigint;
      /** Native value the buy takes; below the amount paid when the buy is capped. */
      spent: bigint;
      /** Native value sent back to the buyer in the same transaction (`msg.value - gross`). */
      refund: bigint;
      /** The buy would pass the graduation threshold and is cut down to reach it exactly. */
      capped: boolean;
      /** The trade leaves the real reserve at the threshold: the token graduates with it. */
      graduates: boolean;
    }
  | { ok: false; refusal: CurveRefusal };

/**
 * Quotes a buy paying `amount` native base units, or a sale of `amount` tokens, as the contract
 * would execute it against `state`.
 * @example
 * const quote = quoteCurveTrade(state, 'buy', 500n * 10n ** 18n);
 * if (quote.ok && quote.capped) console.log(`spends ${quote.spent}, refunds ${quote.refund}`);
 */
export function quoteCurveTrade(
  state: CurveState & { graduated: boolean },
  side: 'buy' | 'sell',
  amount: bigint,
): CurveQuote {
  if (state.graduated) return { ok: false, refusal: 'graduated' };
  if (amount <= 0n) return { ok: false, refusal: 'too-small' };
  if (side === 'buy') {
    const trade = quoteBuy(state, amount);
    if (trade.tokenAmount === 0n) return { ok: false, refusal: 'too-small' };
    if (trade.tokenAmount > state.realTokenReserve) return { ok: false, refusal: 'insufficient-liquidity' };
    return {
      ok: true,
      out: trade.tokenAmount,
      spent: trade.reserveAmount,
      refund: trade.refund,
      capped: uncappedCurveValue(state, amount) > state.graduationThreshold - state.realReserve,
      graduates: trade.graduates,
    };
  }
  const trade = quoteSell(state, amount);
  if (trade.reserveAmount > state.realReserve) return { ok: false, refusal: 'insufficient-liquidity' };
  if (trade.curveValue === 0n) return { ok: false, refusal: 'too-small' };
  return { ok: true, out: trade.curveValue, spent: 0n, refund: 0n, capped: false, graduates: false };
}

/** What a buy of `gross` would put into the curve without the cap (the contract's first split). */
function uncappedCurveValue(state: CurveState, gross: bigint): bigint {
  return gross - (gross * state.protocolFeeBps) / BPS - (gross * state.creatorFeeBps) / BPS;
}
