import { describe, expect, it } from 'vitest';
import { type Exchange, runStages, type Stage } from './exchange';
import type { RequestPolicy } from './request-line';

const exchange = {} as Exchange;
const policy = {} as RequestPolicy;

/** A stage that notes its run in `ran` and answers `verdict`. */
function noting(ran: number[], n: number, verdict: boolean | Promise<boolean>): Stage {
  return () => {
    ran.push(n);
    return verdict;
  };
}

describe('runStages', () => {
  it('runs every stage in order and stays synchronous while each is', () => {
    const ran: number[] = [];
    expect(
      runStages([noting(ran, 1, true), noting(ran, 2, true), noting(ran, 3, true)], exchange, policy),
    ).toBe(true);
    expect(ran).toEqual([1, 2, 3]);
  });

  it('stops at the first stage that answered the request', () => {
    const ran: number[] = [];
    expect(runStages([noting(ran, 1, false), noting(ran, 2, true)], exchange, policy)).toBe(false);
    expect(ran).toEqual([1]);
  });

  it('waits for a stage that waits, then goes on from the next one, or stops', async () => {
    const ran: number[] = [];
    const waited = runStages([noting(ran, 1, Promise.resolve(true)), noting(ran, 2, true)], exchange, policy);
    expect(ran).toEqual([1]);
    await expect(waited).resolves.toBe(true);
    expect(ran).toEqual([1, 2]);
    const refused = runStages(
      [noting(ran, 3, Promise.resolve(false)), noting(ran, 4, true)],
      exchange,
      policy,
    );
    await expect(refused).resolves.toBe(false);
    expect(ran).toEqual([1, 2, 3]);
  });
});
