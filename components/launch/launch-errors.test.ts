import { InsufficientFundsError, UserRejectedRequestError } from 'viem';
import { describe, expect, it } from 'vitest';
import { ChainNotConfiguredError } from 'wagmi';
import { ApiError } from '../../shared/launch/launch-api';
import { IndexWaitExceededError } from '../../shared/launch/launch-flow';
import { TransactionLostError } from '../wallet/wait-for-receipt';
import { describeLaunchFailure } from './launch-errors';

const describeIn = (error: unknown, step: Parameters<typeof describeLaunchFailure>[1] = 'confirm') =>
  describeLaunchFailure(error, step, 'the devnet');

describe('describeLaunchFailure: every failure in plain words', () => {
  it('wallet refusals, missing funds and the wrong network, also when wrapped', () => {
    expect(describeIn(new UserRejectedRequestError(new Error('x')))).toMatch(/declined the request/);
    const wrapped = new Error('send failed', { cause: new InsufficientFundsError() });
    expect(describeIn(wrapped)).toMatch(/not have enough funds/);
    expect(describeIn(new ChainNotConfiguredError())).toMatch(/Switch it to the devnet/);
  });

  it('the server’s message for a refused upload, Retry-After for 429', () => {
    expect(describeIn(new ApiError(400, 'invalid_image', 'the image is not a PNG'), 'upload')).toBe(
      'The server refused the draft: the image is not a PNG.',
    );
    expect(describeIn(new ApiError(429, 'rate_limited', 'slow', [], 12_000), 'upload')).toMatch(
      /in 12 seconds/,
    );
    expect(describeIn(new ApiError(401, 'invalid_signature', 'bad'), 'finalize')).toBe(
      'Finalize was refused: bad.',
    );
  });

  it('network down and the index-wait limit', () => {
    expect(describeIn(new TypeError('Failed to fetch'), 'upload')).toMatch(/network could not be reached/);
    expect(describeIn(new IndexWaitExceededError('x'), 'finalize')).toMatch(/launched, but the index/);
  });

  it('a launch transaction the network dropped or stopped answering for: keep waiting, or send a new one', () => {
    expect(describeIn(new TransactionLostError(`0x${'ab'.repeat(32)}`, 60_000, 'dropped'), 'receipt')).toBe(
      'The network has not known this transaction for 60 s: it was dropped, or replaced from your wallet (a speed-up or a cancel). Keep waiting if your wallet still shows it pending; send a new launch transaction if it shows it dropped or failed (were both mined, two tokens would be launched).',
    );
    expect(describeIn(new TransactionLostError(`0x${'ab'.repeat(32)}`, 60_000, 'no answer'), 'receipt')).toBe(
      'The network has not answered for 60 s, so this page stopped waiting: the transaction may still be mined. Keep waiting if your wallet still shows it pending; send a new launch transaction if it shows it dropped or failed (were both mined, two tokens would be launched).',
    );
  });
});
