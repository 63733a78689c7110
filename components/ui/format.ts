/**
 * Display formatting for indexed amounts. Amounts arrive as exact base-unit integers (bigint);
 * converting to a float here is fine because these strings are for people, never for math.
 */

import { DECIMALS } from '@/shared/units';

/** An 18-decimal base-unit amount as a float of whole units (display only). */
export function toWholeUnits(value: bigint, decimals = DECIMALS): number {
  const scale = 10n ** BigInt(decimals);
  const whole = value / scale;
  const fraction = value % scale;
  return Number(whole) + Number(fraction) / Number(scale);
}

const SUBSCRIPT_DIGITS = '₀₁₂₃₄₅₆₇₈₉';

function subscript(n: number): string {
  return [...String(n)].map((digit) => SUBSCRIPT_DIGITS[Number(digit)]).join('');
}

/**
 * A positive float with four significant digits; values below 0.0001 collapse their leading
 * zeros into a subscript count (0.0₅2810 = 0.000002810), as trading UIs do for tiny prices.
 */
export function formatSignificant(value: number): string {
  if (value === 0) return '0';
  if (!Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  if (abs >= 1_000) {
    return (
      sign + new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 }).format(abs)
    );
  }
  if (abs >= 0.0001) {
    return sign + new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 }).format(abs);
  }
  const exponent = Math.floor(Math.log10(abs));
  const zeros = -exponent - 1;
  const digits = Math.round(abs * 10 ** (-exponent + 3))
    .toString()
    .replace(/0+$/, '');
  return `${sign}0.0${subscript(zeros)}${digits || '0'}`;
}

/**
 * An amount of the chain's native currency (a stablecoin with 18 decimals, see DESIGN.md §1),
 * shown in dollars.
 */
export function formatNative(value: bigint): string {
  const text = formatSignificant(toWholeUnits(value));
  return text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`;
}

/** A token amount in base units (18 decimals), compact for large balances. */
export function formatTokenAmount(value: bigint, decimals = 18): string {
  return formatSignificant(toWholeUnits(value, decimals));
}

/** Basis points as a percentage with at most one decimal: 5234 → "52.3%". */
export function formatBps(bps: number): string {
  return `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(bps / 100)}%`;
}

/** A signed change in basis points: +12.5% / −3.1%, with the sign always shown. */
export function formatChangeBps(bps: number): string {
  const text = formatBps(Math.abs(bps));
  if (bps > 0) return `+${text}`;
  if (bps < 0) return `−${text}`;
  return text;
}

/** 0x1234…abcd */
export function shortAddress(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/** Whole units of an integer count, grouped: 12,345. */
export function formatCount(value: number): string {
  return new Intl.NumberFormat('en-US').format(value);
}

/** "3m ago" from Unix seconds, relative to `now` (Unix ms). */
export function formatAge(unixSeconds: number, now: number): string {
  const seconds = Math.max(0, Math.round(now / 1000 - unixSeconds));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}

/** An absolute UTC timestamp for tooltips and provenance. */
export function formatTimestamp(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}
