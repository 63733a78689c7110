import type { Address, Hex } from 'viem';
import type { DraftResponse } from '../metadata/api';
import { ApiError, type FinalizeRequest } from './launch-api';
import type { ValidLaunch } from './launch-form-rules';

/** Where a launch is; the status region renders exactly this. */
export type LaunchStep =
  | { kind: 'upload' }
  | { kind: 'confirm' }
  | { kind: 'receipt'; transactionHash: Hex }
  | { kind: 'sign' }
  | { kind: 'finalize' }
  | { kind: 'indexing'; indexedThroughBlock: number | null; launchBlock: number | null; retryInMs: number }
  | { kind: 'rate-limited'; retryInMs: number }
  | { kind: 'done'; token: Address };

/**
 * What is already done, so a retry after a failure resumes instead of repeating: no second
 * upload, and above all no second launch transaction once one is mined.
 */
export interface LaunchProgress {
  draft?: DraftResponse;
  transactionHash?: Hex;
  token?: Address;
  launchBlock?: number;
  signature?: Hex;
}

/** The edges of a launch: the API, the wallet, the chain and the clock. */
export interface LaunchServices {
  uploadDraft(launch: ValidLaunch): Promise<DraftResponse>;
  sendLaunch(launch: ValidLaunch, metadataHash: Hex): Promise<Hex>;
  /** The launched token and its block, from the mined receipt; throws LaunchRevertedError if it reverted. */
  waitForLaunch(transactionHash: Hex): Promise<{ token: Address; blockNumber: number }>;
  signFinalize(message: { draft: string; token: Address; transactionHash: Hex }): Promise<Hex>;
  postFinalize(draftId: string, body: FinalizeRequest): Promise<unknown>;
  sleep(ms: number): Promise<void>;
}

/** First wait after a 409 not_indexed; it doubles up to {@link MAX_RETRY_DELAY_MS}. */
export const FIRST_RETRY_DELAY_MS = 500;
export const MAX_RETRY_DELAY_MS = 5_000;
/** How long finalize keeps waiting for the index before handing the retry to the person. */
export const MAX_FINALIZE_WAIT_MS = 180_000;

/** The launch transaction was mined but reverted: nothing was created, so a retry sends anew. */
export class LaunchRevertedError extends Error {
  override name = 'LaunchRevertedError';
}

/** Thrown when the index did not reach the launch in time; the launch itself is safe on chain. */
export class IndexWaitExceededError extends Error {
  override name = 'IndexWaitExceededError';
}

const numberOrNull = (value: string | undefined) =>
  value !== undefined && /^\d+$/.test(value) ? Number(value) : null;

/** Upload attempts refused with 429 before the refusal is handed to the person. */
export const MAX_UPLOAD_ATTEMPTS = 4;

/**
 * Uploads the draft, waiting out a 429 (too many uploads at once or per minute from this
 * address) for its Retry-After, a few times: nothing was stored, so a retry is safe.
 */
async function uploadWhenAllowed(
  services: LaunchServices,
  launch: ValidLaunch,
  onStep: (step: LaunchStep) => void,
): Promise<DraftResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await services.uploadDraft(launch);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'rate_limited' || attempt >= MAX_UPLOAD_ATTEMPTS)
        throw error;
      const wait = Math.max(FIRST_RETRY_DELAY_MS, error.retryAfterMs ?? 0);
      onStep({ kind: 'rate-limited', retryInMs: wait });
      await services.sleep(wait);
      onStep({ kind: 'upload' });
    }
  }
}

/**
 * Runs a launch from upload to finalize, reporting each step. `progress` is updated in place as
 * steps complete. Finalize retries with exponential backoff while the API answers 409
 * not_indexed (or 503, or 429 after its Retry-After), up to {@link MAX_FINALIZE_WAIT_MS}.
 * @returns the launched token's address
 */
export async function runLaunch(
  services: LaunchServices,
  launch: ValidLaunch,
  progress: LaunchProgress,
  onStep: (step: LaunchStep) => void,
): Promise<Address> {
  if (!progress.draft) {
    onStep({ kind: 'upload' });
    progress.draft = await uploadWhenAllowed(services, launch, onStep);
  }
  const draft = progress.draft;
  if (!progress.transactionHash) {
    onStep({ kind: 'confirm' });
    progress.transactionHash = await services.sendLaunch(launch, draft.metadata_hash as Hex);
  }
  const transactionHash = progress.transactionHash;
  if (!progress.token) {
    onStep({ kind: 'receipt', transactionHash });
    let launched: Awaited<ReturnType<LaunchServices['waitForLaunch']>>;
    try {
      launched = await services.waitForLaunch(transactionHash);
    } catch (error) {
      if (error instanceof LaunchRevertedError) progress.transactionHash = undefined;
      throw error;
    }
    progress.token = launched.token;
    progress.launchBlock = launched.blockNumber;
  }
  const token = progress.token;
  if (!progress.signature) {
    onStep({ kind: 'sign' });
    progress.signature = await services.signFinalize({ draft: draft.draft_id, token, transactionHash });
  }
  const body = { token_address: token, transaction_hash: transactionHash, signature: progress.signature };

  onStep({ kind: 'finalize' });
  let delay = FIRST_RETRY_DELAY_MS;
  let waited = 0;
  for (;;) {
    try {
      await services.postFinalize(draft.draft_id, body);
      onStep({ kind: 'done', token });
      return token;
    } catch (error) {
      const retryable =
        error instanceof ApiError &&
        (error.code === 'not_indexed' || error.code === 'unavailable' || error.code === 'rate_limited');
      if (!retryable || waited >= MAX_FINALIZE_WAIT_MS) {
        if (retryable)
          throw new IndexWaitExceededError('the index has not reached the launch yet', { cause: error });
        throw error;
      }
      const wait = error.code === 'rate_limited' ? Math.max(delay, error.retryAfterMs ?? 0) : delay;
      onStep(
        error.code === 'rate_limited'
          ? { kind: 'rate-limited', retryInMs: wait }
          : {
              kind: 'indexing',
              indexedThroughBlock: numberOrNull(error.detail('indexed_through_block')),
              launchBlock: numberOrNull(error.detail('launch_block')) ?? progress.launchBlock ?? null,
              retryInMs: wait,
            },
      );
      await services.sleep(wait);
      waited += wait;
      delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
    }
  }
}
