import { TransactionLostError } from '@/components/wallet/wait-for-receipt';
import { describeWalletError } from '@/components/wallet/wallet-errors';
import { ApiError } from '../../shared/launch/launch-api';
import {
  IndexWaitExceededError,
  LaunchRevertedError,
  type LaunchStep,
} from '../../shared/launch/launch-flow';

const seconds = (ms: number | undefined) => Math.max(1, Math.ceil((ms ?? 1000) / 1000));

/**
 * A launch failure in plain words, for the step it happened in. Server refusals quote the
 * server's own message (it names the rule); wallet and network failures say what to do.
 */
export function describeLaunchFailure(
  error: unknown,
  step: LaunchStep['kind'] | null,
  chainName: string,
): string {
  if (error instanceof IndexWaitExceededError)
    return 'Your token is launched, but the index has not caught up with it yet. Press “Try again” to finalize later: nothing is launched twice.';
  if (error instanceof TransactionLostError)
    return `${error.message} Keep waiting if your wallet still shows it pending; send a new launch transaction if it shows it dropped or failed (were both mined, two tokens would be launched).`;
  if (error instanceof LaunchRevertedError)
    return 'The launch transaction was mined but reverted, so no token was created. Check the form and try again.';
  if (error instanceof ApiError) {
    if (error.code === 'rate_limited')
      return `Too many requests from your address. Try again in ${seconds(error.retryAfterMs)} seconds.`;
    if (error.status >= 500)
      return `The server could not handle the request right now (${error.status}). Try again in a moment.`;
    if (step === 'upload') return `The server refused the draft: ${error.message}.`;
    return `Finalize was refused: ${error.message}.`;
  }
  if (error instanceof TypeError && /fetch|network/i.test(error.message))
    return 'The network could not be reached. Check your connection and try again.';
  const wallet = describeWalletError(error, chainName);
  if (wallet) return wallet;
  return `Something went wrong: ${error instanceof Error ? error.message : String(error)}`;
}
