/**
 * The bonding curve's arithmetic, mirrored from contracts/src/BondingCurve.sol (same rounding,
 * always in the curve's favour). Pure: used for quotes, for pricing in projections, and by the
 * property tests that check the contract against it.
 */

import { WAD } from '../units';

export const BPS = 10_000n;

/** 6-decimal stablecoin units to 18-decimal native units. */
export const STABLE_NORMALIZATION = 10n ** 12n;

export interface CurveState {
  virtualTokenReserve: bigint;
  virtualReserve: bigint;
  realTokenReserve: bigint;
  realReserve: bigint;
  graduationThreshold: bigint;
  protocolFeeBps: bigint;
  creatorFeeBps: bigint;
}

export interface CurveTrade {
  tokenAmount: bigint;
  /** What the trader paid (buy) or what left the curve (sell). */
  reserveAmount: bigint;
  /** What entered the curve (buy) or what the trader received (sell). */
  curveValue: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  /** Native value returned to the buyer because the buy would overshoot the threshold. */
  refund: bigint;
  after: CurveState;
  graduates: boolean;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return a === 0n ? 0n : (a - 1n) / b + 1n;
}

/** A buy paying `value`; mirrors BondingCurve._buy. */
export function quoteBuy(state: CurveState, value: bigint): CurveTrade {
  let gross = value;
  let protocolFee = (gross * state.protocolFeeBps) / BPS;
  let creatorFee = (gross * state.creatorFeeBps) / BPS;
  let curveValue = gross - protocolFee - creatorFee;
  const room = state.graduationThreshold - state.realReserve;
  if (curveValue > room) {
    curveValue = room;
    const needed = ceilDiv(room * BPS, BPS - state.protocolFeeBps - state.creatorFeeBps);
    gross = needed < value ? needed : value;
    protocolFee = (gross * state.protocolFeeBps) / BPS;
    creatorFee = gross - room - protocolFee;
  }
  const newVirtualTokenReserve = ceilDiv(
    state.virtualTokenReserve * state.virtualReserve,
    state.virtualReserve + curveValue,
  );
  const tokenAmount = state.virtualTokenReserve - newVirtualTokenReserve;
  const after: CurveState = {
    ...state,
    virtualTokenReserve: newVirtualTokenReserve,
    virtualReserve: state.virtualReserve + curveValue,
    realTokenReserve: state.realTokenReserve - tokenAmount,
    realReserve: state.realReserve + curveValue,
  };
  return {
    tokenAmount,
    reserveAmount: gross,
    curveValue,
    protocolFee,
    creatorFee,
    refund: value - gross,
    after,
    graduates: after.realReserve === state.graduationThreshold,
  };
}

/** A sale of `tokenAmount`; mirrors BondingCurve.sell. */
export function quoteSell(state: CurveState, tokenAmount: bigint): CurveTrade {
  const newVirtualReserve = ceilDiv(
    state.virtualTokenReserve * state.virtualReserve,
    state.virtualTokenReserve + tokenAmount,
  );
  const gross = state.virtualReserve - newVirtualReserve;
  const protocolFee = (gross * state.protocolFeeBps) / BPS;
  const creatorFee = (gross * state.creatorFeeBps) / BPS;
  return {
    tokenAmount,
    reserveAmount: gross,
    curveValue: gross - protocolFee - creatorFee,
    protocolFee,
    creatorFee,
    refund: 0n,
    after: {
      ...state,
      virtualTokenReserve: state.virtualTokenReserve + tokenAmount,
      virtualReserve: newVirtualReserve,
      realTokenReserve: state.realTokenReserve + tokenAmount,
      realReserve: state.realReserve - gross,
    },
    graduates: false,
  };
}

/** Spot price: native base units per whole token (10^18 base units), DESIGN.md section 6. */
export function curvePrice(virtualTokenReserve: bigint, virtualReserve: bigint): bigint {
  return virtualTokenReserve === 0n ? 0n : (virtualReserve * WAD) / virtualTokenReserve;
}

/** Graduation progress in basis points, capped at 100 %. */
export function graduationProgress(realReserve: bigint, graduationThreshold: bigint): number {
  if (graduationThreshold === 0n) return 0;
  const bps = (realReserve * BPS) / graduationThreshold;
  return Number(bps > BPS ? BPS : bps);
}

/** A 6-decimal stablecoin amount in 18-decimal native units. */
export function normalizeStablecoinAmount(units: bigint): bigint {
  return units * STABLE_NORMALIZATION;
}

/**
 * Price from a Uniswap V3 sqrtPriceX96 of a token/stable pool, in native base units per whole
 * token: (sqrtP / 2^96)^2 is raw token1 per raw token0; stable raw units are 10^12 native.
 */
export function poolPrice(sqrtPriceX96: bigint, tokenIsToken0: boolean): bigint {
  const Q192 = 2n ** 192n;
  const squared = sqrtPriceX96 * sqrtPriceX96;
  if (tokenIsToken0) return (squared * WAD * STABLE_NORMALIZATION) / Q192;
  return squared === 0n ? 0n : (Q192 * WAD * STABLE_NORMALIZATION) / squared;
}
