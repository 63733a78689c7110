import type { Address, Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { DraftResponse } from '../metadata/api';
import { ApiError } from './launch-api';
import { IndexWaitExceededError, type LaunchProgress, type LaunchStep, runLaunch } from './launch-flow';
import type { ValidLaunch } from './launch-form-rules';

const TOKEN = '0x00000000000000000000000000000000000000aa' as Address;
const HASH = `0x${'11'.repeat(32)}` as Hex;
const launch: ValidLaunch = {
  fields: { name: 'A', symbol: 'A', initial_supply: (10n ** 24n).toString() },
  imageFile: null,
  name: 'A',
  symbol: 'A',
  initialSupply: 10n ** 24n,
  firstBuy: 0n,
};
const draft = { draft_id: 'd_1', metadata_hash: `0x${'22'.repeat(32)}` } as DraftResponse;
const notIndexed = (through: number) =>
  new ApiError(409, 'not_indexed', 'not yet', [
    { field: 'indexed_through_block', message: String(through) },
    { field: 'launch_block', message: '120' },
  ]);

/** Records every call; finalize answers are scripted. */
function services(finalizeAnswers: (Error | 'ok')[]) {
  const calls: string[] = [];
  const sleeps: number[] = [];
  const record = <T>(call: string, value: T) => {
    calls.push(call);
    return value;
  };
  return {
    record,
    calls,
    sleeps,
    services: {
      uploadDraft: async () => record('upload', draft),
      sendLaunch: async (_: ValidLaunch, metadataHash: Hex) => record(`send ${metadataHash}`, HASH),
      waitForLaunch: async () => record('receipt', { token: TOKEN, blockNumber: 120 }),
      signFinalize: async () => record('sign', '0xsig' as Hex),
      postFinalize: async () => {
        calls.push('finalize');
        const answer = finalizeAnswers.shift() ?? 'ok';
        if (answer !== 'ok') throw answer;
        return {};
      },
      sleep: async (ms: number) => void sleeps.push(ms),
    },
  };
}

describe('runLaunch', () => {
  it('uploads, launches with the draft’s metadataHash, waits, signs and finalizes in that order', async () => {
    const s = services(['ok']);
    const steps: LaunchStep[] = [];
    expect(await runLaunch(s.services, launch, {}, (step) => steps.push(step))).toBe(TOKEN);
    expect(s.calls).toEqual(['upload', `send ${draft.metadata_hash}`, 'receipt', 'sign', 'finalize']);
    expect(steps.map((step) => step.kind)).toEqual([
      'upload',
      'confirm',
      'receipt',
      'sign',
      'finalize',
      'done',
    ]);
  });

  it('retries 409 not_indexed with doubling backoff, reporting the indexed block of the launch block', async () => {
    const s = services([
      notIndexed(117),
      notIndexed(118),
      notIndexed(119),
      notIndexed(119),
      notIndexed(119),
      'ok',
    ]);
    const steps: LaunchStep[] = [];
    await runLaunch(s.services, launch, {}, (step) => steps.push(step));
    expect(s.sleeps).toEqual([500, 1000, 2000, 4000, 5000]);
    expect(steps.find((step) => step.kind === 'indexing')).toEqual({
      kind: 'indexing',
      indexedThroughBlock: 117,
      launchBlock: 120,
      retryInMs: 500,
    });
    expect(s.calls.filter((call) => call === 'finalize')).toHaveLength(6);
    expect(s.calls.filter((call) => call === 'sign')).toHaveLength(1);
  });

  it('waits at least Retry-After on 429', async () => {
    const s = services([new ApiError(429, 'rate_limited', 'slow down', [], 7000), 'ok']);
    await runLaunch(s.services, launch, {}, () => {});
    expect(s.sleeps).toEqual([7000]);
  });

  it('gives up after the wait limit with IndexWaitExceededError, and a retry resumes at finalize only', async () => {
    const s = services(Array.from({ length: 60 }, () => notIndexed(1)));
    const progress: LaunchProgress = {};
    await expect(runLaunch(s.services, launch, progress, () => {})).rejects.toBeInstanceOf(
      IndexWaitExceededError,
    );
    expect(progress).toMatchObject({ transactionHash: HASH, token: TOKEN, signature: '0xsig' });
    s.calls.length = 0;
    s.services.postFinalize = async () => s.record('finalize', {});
    await runLaunch(s.services, launch, progress, () => {});
    expect(s.calls).toEqual(['finalize']);
  });

  it('does not retry a refusal such as invalid_signature', async () => {
    const s = services([new ApiError(401, 'invalid_signature', 'bad signature')]);
    await expect(runLaunch(s.services, launch, {}, () => {})).rejects.toMatchObject({
      code: 'invalid_signature',
    });
    expect(s.sleeps).toEqual([]);
  });

  it('never sends a second launch transaction once one was sent', async () => {
    const s = services(['ok']);
    const progress: LaunchProgress = {};
    s.services.waitForLaunch = async () => {
      throw new TypeError('Failed to fetch');
    };
    await expect(runLaunch(s.services, launch, progress, () => {})).rejects.toThrow('Failed to fetch');
    s.services.waitForLaunch = async () => ({ token: TOKEN, blockNumber: 120 });
    s.calls.length = 0;
    await runLaunch(s.services, launch, progress, () => {});
    expect(s.calls).toEqual(['sign', 'finalize']);
  });

  it('waits out a 429 on upload for its Retry-After, then uploads once and carries on', async () => {
    const s = services(['ok']);
    const refusals = [1_000, 2_000];
    s.services.uploadDraft = async () => {
      const retryAfter = refusals.shift();
      if (retryAfter !== undefined) {
        s.calls.push('upload refused');
        throw new ApiError(429, 'rate_limited', 'at most 2 uploads at once', [], retryAfter);
      }
      return s.record('upload', draft);
    };
    const steps: LaunchStep[] = [];
    expect(await runLaunch(s.services, launch, {}, (step) => steps.push(step))).toBe(TOKEN);
    expect(s.calls.slice(0, 3)).toEqual(['upload refused', 'upload refused', 'upload']);
    expect(s.sleeps.slice(0, 2)).toEqual([1_000, 2_000]);
    expect(steps.filter((step) => step.kind === 'rate-limited')).toHaveLength(2);
  });

  it('hands a persistent 429 on upload to the person after a few attempts, having launched nothing', async () => {
    const s = services(['ok']);
    s.services.uploadDraft = async () => {
      s.calls.push('upload refused');
      throw new ApiError(429, 'rate_limited', 'too many uploads', [], 1_000);
    };
    await expect(runLaunch(s.services, launch, {}, () => {})).rejects.toMatchObject({ code: 'rate_limited' });
    expect(s.calls).toEqual(Array(4).fill('upload refused'));
  });
});
