import { describe, expect, it } from 'vitest';
import { uncovered } from './partitions';

describe('uncovered', () => {
  const inf = Number.POSITIVE_INFINITY;
  it('is the whole window when nothing covers it', () => {
    expect(uncovered(0, 10, [])).toEqual([{ from: 0, to: 10 }]);
    expect(uncovered(0, 10, [{ from: 10, to: 20 }])).toEqual([{ from: 0, to: 10 }]);
  });
  it('is nothing when one partition or several adjacent ones cover it', () => {
    expect(uncovered(0, 10, [{ from: -inf, to: 20 }])).toEqual([]);
    expect(
      uncovered(0, 10, [
        { from: 5, to: 10 },
        { from: -inf, to: 5 },
      ]),
    ).toEqual([]);
  });
  it('is the gaps between, before and after partitions, in order', () => {
    expect(
      uncovered(0, 100, [
        { from: 40, to: 60 },
        { from: -inf, to: 20 },
        { from: 90, to: inf },
      ]),
    ).toEqual([
      { from: 20, to: 40 },
      { from: 60, to: 90 },
    ]);
  });
});
