import { describe, expect, it } from 'vitest';
import { defaultRestartPolicy, restartDelay } from './restart-delay';

describe('restartDelay: a dying worker is replaced, never in a tight loop', () => {
  it('waits the first delay for the first death, then doubles on quick deaths up to the maximum', () => {
    const delays: number[] = [];
    let previous = 0;
    for (let death = 0; death < 8; death++) {
      previous = restartDelay(previous, 500, defaultRestartPolicy);
      delays.push(previous);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('starts over after a worker that lived long enough to count as healthy', () => {
    expect(restartDelay(30_000, defaultRestartPolicy.stableAfterMs, defaultRestartPolicy)).toBe(1_000);
    expect(restartDelay(30_000, defaultRestartPolicy.stableAfterMs - 1, defaultRestartPolicy)).toBe(30_000);
  });
});
