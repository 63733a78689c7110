import { describe, expect, it } from 'vitest';
import { deadlineAfter, minimumOut, parseAmount } from './amounts';

describe('trade amounts', () => {
  it.each([
    ['1', 10n ** 18n],
    ['0.5', 5n * 10n ** 17n],
    ['.25', 25n * 10n ** 16n],
    ['2.', 2n * 10n ** 18n],
    [' 3 ', 3n * 10n ** 18n],
    ['0.000000000000000001', 1n],
    ['0', 0n],
  ])('parses %j', (text, expected) => {
    expect(parseAmount(text)).toBe(expected);
  });

  it.each(['', '.', '-1', '1e3', '0x10', '1,5', '1.2.3', 'abc', '0.0000000000000000001', '+1'])(
    'refuses %j',
    (text) => {
      expect(parseAmount(text)).toBeNull();
    },
  );

  it('takes the slippage off the quote, rounding down, and refuses a slippage out of range', () => {
    expect(minimumOut(1_000n, 100)).toBe(990n);
    expect(minimumOut(999n, 1)).toBe(998n);
    expect(minimumOut(10n ** 18n, 5_000)).toBe(5n * 10n ** 17n);
    for (const bad of [0, -1, 5_001, 1.5, Number.NaN]) expect(() => minimumOut(1n, bad)).toThrow(RangeError);
  });

  it('puts the deadline whole minutes ahead, at least one', () => {
    expect(deadlineAfter(10, 1_000)).toBe(1_600n);
    expect(deadlineAfter(0, 1_000)).toBe(1_060n);
  });
});
