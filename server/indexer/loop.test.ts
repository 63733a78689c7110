import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../test/indexer/harness';
import type { StepResult } from './indexer';
import { runLoop, syncToHead } from './loop';
import { ReorgTooDeepError } from './reorg/find-ancestor';
import { RpcError, RpcRangeError } from './rpc/client';

const advanced = (caughtUp: boolean): StepResult => ({
  kind: 'advanced',
  from: 1,
  to: 5,
  head: caughtUp ? 5 : 9,
  caughtUp,
});
const atHead: StepResult = { kind: 'idle', head: 5, reason: 'at-head' };
const halted = (error: RpcError | ReorgTooDeepError): StepResult => ({ kind: 'halted', error });

/** A loop over scripted outcomes; the abort comes after the last one. */
function scripted(outcomes: StepResult[]) {
  const controller = new AbortController();
  const sleeps: number[] = [];
  let steps = 0;
  const options = {
    step: async () => {
      const result = outcomes[steps++];
      if (!result) throw new Error('stepped past the script');
      if (steps === outcomes.length) controller.abort();
      return result;
    },
    logger: silentLogger,
    pollIntervalMs: 500,
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
  };
  return { options, signal: controller.signal, sleeps, steps: () => steps };
}

describe('runLoop', () => {
  it('polls after reaching the head, steps on after progress and reorgs, backs off only on `later`', async () => {
    const loop = scripted([
      advanced(false),
      { kind: 'reorg', from: 5, ancestor: 3, removedBlocks: 2 },
      halted(new RpcRangeError('range too large')),
      halted(new RpcError('node down')),
      halted(new RpcError('node down')),
      advanced(true),
      atHead,
    ]);
    await runLoop(loop.options, loop.signal);
    expect(loop.steps()).toBe(7);
    // Backoff doubles from 1 s while failures last; progress resets it; the head is polled.
    expect(loop.sleeps).toEqual([1000, 2000, 500, 500]);
  });

  it('stops on an error that says never', async () => {
    const loop = scripted([advanced(false), halted(new ReorgTooDeepError('too deep')), atHead]);
    await expect(runLoop(loop.options, loop.signal)).rejects.toBeInstanceOf(ReorgTooDeepError);
    expect(loop.steps()).toBe(2);
  });
});

describe('syncToHead', () => {
  it('returns once a second step confirms the head, stepping again at once on `now`', async () => {
    const loop = scripted([
      advanced(false),
      halted(new RpcRangeError('range too large')),
      advanced(true),
      atHead,
    ]);
    await syncToHead(loop.options);
    expect(loop.steps()).toBe(4);
    expect(loop.sleeps).toEqual([]);
  });

  it('throws what the run loop would wait out or stop on', async () => {
    const loop = scripted([advanced(false), halted(new RpcError('node down')), atHead]);
    await expect(syncToHead(loop.options)).rejects.toBeInstanceOf(RpcError);
  });
});
