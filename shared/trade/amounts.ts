import { DECIMALS } from '../units';

/**
 * What a person types into a trade form, as base units: decimal text with at most 18 fraction
 * digits, no sign, no exponent. Null for anything else (the form says why).
 * @example parseAmount('0.5') // 500000000000000000n
 */
export function parseAmount(text: string, decimals = DECIMALS): bigint | null {
  const value = text.trim();
  const match = /^(\d+)(?:\.(\d*))?$|^\.(\d+)$/.exec(value);
  if (!match) return null;
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? match[3] ?? '';
  if (fraction.length > decimals) return null;
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** Slippage a person may allow, in basis points: 0.01 % to 50 %. */
export const SLIPPAGE_MIN_BPS = 1;
export const SLIPPAGE_MAX_BPS = 5_000;

/**
 * The least a trade may return: the quote less the slippage allowed, rounded down.
 * @example minimumOut(1000n, 100) // 990n
 */
export function minimumOut(quote: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < SLIPPAGE_MIN_BPS || slippageBps > SLIPPAGE_MAX_BPS)
    throw new RangeError(`slippage must be ${SLIPPAGE_MIN_BPS}-${SLIPPAGE_MAX_BPS} bps`);
  return (quote * BigInt(10_000 - slippageBps)) / 10_000n;
}

/** The deadline a trade carries: `minutes` from `now` (Unix seconds), as the contracts take it. */
export function deadlineAfter(minutes: number, now = Math.floor(Date.now() / 1000)): bigint {
  return BigInt(now + Math.max(1, Math.floor(minutes)) * 60);
}
