import { describe, expect, it } from 'vitest';
import { quoteExactInput } from './pool-quote';

const Q96 = 2n ** 96n;

describe('quoteExactInput (full-range pool)', () => {
  // Price 1 (sqrt 1), deep liquidity: a small swap returns the input less the fee, less a hair.
  const deep = { sqrtPriceX96: Q96, liquidity: 10n ** 30n, feePips: 3_000 };

  // Rounding the next sqrt price by one unit costs up to liquidity / 2^96 (≈ 13) output units.
  it('returns the input less the 0.3 % fee at price 1 for a trade too small to move the price', () => {
    for (const zeroForOne of [true, false]) {
      const out = quoteExactInput(deep, zeroForOne, 1_000_000n);
      expect(out).toBeLessThanOrEqual(997_000n);
      expect(out).toBeGreaterThanOrEqual(997_000n - 13n);
    }
  });

  it('follows the price: at price 4 (sqrt 2) token0 buys four times as much token1', () => {
    const pool = { ...deep, sqrtPriceX96: 2n * Q96 };
    expect(quoteExactInput(pool, true, 1_000_000n)).toBeGreaterThanOrEqual(3_988_000n - 26n);
    expect(quoteExactInput(pool, true, 1_000_000n)).toBeLessThanOrEqual(3_988_000n);
    expect(quoteExactInput(pool, false, 4_000_000n)).toBeGreaterThanOrEqual(997_000n - 13n);
    expect(quoteExactInput(pool, false, 4_000_000n)).toBeLessThanOrEqual(997_000n);
  });

  it('has price impact: output grows less than linearly, and never reaches the reserve', () => {
    const shallow = { ...deep, liquidity: 10n ** 12n };
    const one = quoteExactInput(shallow, true, 10n ** 11n);
    const ten = quoteExactInput(shallow, true, 10n ** 12n);
    expect(ten).toBeLessThan(10n * one);
    expect(quoteExactInput(shallow, true, 10n ** 30n)).toBeLessThan(shallow.liquidity);
  });

  it('is zero for nothing in or an empty pool', () => {
    expect(quoteExactInput(deep, true, 0n)).toBe(0n);
    expect(quoteExactInput({ ...deep, liquidity: 0n }, true, 100n)).toBe(0n);
  });
});
