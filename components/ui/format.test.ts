import { describe, expect, it } from 'vitest';
import {
  formatAge,
  formatBps,
  formatChangeBps,
  formatNative,
  formatSignificant,
  formatTokenAmount,
  shortAddress,
  toWholeUnits,
} from './format';

describe('display formatting', () => {
  it('converts base units to whole units without losing the integer part', () => {
    expect(toWholeUnits(1_500_000_000_000_000_000n)).toBe(1.5);
    expect(toWholeUnits(123_456_789n * 10n ** 18n)).toBe(123_456_789);
    expect(toWholeUnits(1_000_000n, 6)).toBe(1);
  });

  it('shows prices with four significant digits and collapses leading zeros of tiny ones', () => {
    expect(formatSignificant(0)).toBe('0');
    expect(formatSignificant(12.3456)).toBe('12.35');
    expect(formatSignificant(0.001234)).toBe('0.001234');
    expect(formatSignificant(0.00000281)).toBe('0.0₅281');
    expect(formatSignificant(0.00000000001)).toBe('0.0₁₀1');
    expect(formatSignificant(1_234_567)).toBe('1.23M');
  });

  it('formats native amounts in dollars (the native currency is a stablecoin)', () => {
    expect(formatNative(0n)).toBe('$0');
    expect(formatNative(28_100_000_000n)).toBe('$0.0₇281');
    expect(formatNative(2_500n * 10n ** 18n)).toBe('$2.5K');
    expect(formatTokenAmount(1_000_000_000n * 10n ** 18n)).toBe('1B');
  });

  it('formats basis points and signed changes', () => {
    expect(formatBps(5234)).toBe('52.3%');
    expect(formatBps(10000)).toBe('100%');
    expect(formatChangeBps(1250)).toBe('+12.5%');
    expect(formatChangeBps(-310)).toBe('−3.1%');
    expect(formatChangeBps(0)).toBe('0%');
  });

  it('shortens addresses and ages', () => {
    expect(shortAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3')).toBe('0x5fbd…0aa3');
    const now = 1_000_000_000_000;
    expect(formatAge(now / 1000 - 5, now)).toBe('5s ago');
    expect(formatAge(now / 1000 - 300, now)).toBe('5m ago');
    expect(formatAge(now / 1000 - 7200, now)).toBe('2h ago');
    expect(formatAge(now / 1000 - 3 * 86400, now)).toBe('3d ago');
  });
});
