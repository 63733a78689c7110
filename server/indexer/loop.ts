import type { StepResult } from './indexer';
import type { IndexerLogger } from './progress';

/** Longest wait between retries of failing steps. */
const MAX_BACKOFF_MS = 30_000;

export interface LoopOptions {
  step: () => Promise<StepResult>;
  logger: IndexerLogger;
  pollIntervalMs: number;
  sleep: (ms: number) => Promise<void>;
}

/** The index is at the head as the step saw it. */
const atHead = (result: StepResult) =>
  (result.kind === 'idle' && result.reason === 'at-head') || (result.kind === 'advanced' && result.caughtUp);

/**
 * Steps until `signal` aborts, doing what each outcome asks: poll again after a while at the
 * head, step on after progress or a reorg, and on a halt do what the error's `retry` says —
 * step again at once, wait with backoff, or stop (throw).
 */
export async function runLoop({ step, logger, pollIntervalMs, sleep }: LoopOptions, signal: AbortSignal) {
  let failures = 0;
  while (!signal.aborted) {
    const result = await step();
    if (result.kind !== 'halted') {
      failures = 0;
      if (result.kind === 'idle' || atHead(result)) await sleep(pollIntervalMs);
      continue;
    }
    const { error } = result;
    if (error.retry === 'never') throw error;
    if (error.retry === 'now') {
      failures = 0;
      logger.warn({}, `${error.message}; retrying`);
      continue;
    }
    failures++;
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 6));
    logger.error({ err: error.message, delay }, 'indexer step failed; retrying');
    await sleep(delay);
  }
}

/**
 * Steps until the checkpoint reaches the head, confirmed by one more step that finds no new
 * block and no reorg at the tip. A failure the run loop would wait out (`retry: later`) or
 * never retry is thrown: callers are tests and tools that want to know.
 */
export async function syncToHead({ step, logger, pollIntervalMs, sleep }: LoopOptions): Promise<void> {
  for (;;) {
    const result = await step();
    if (result.kind === 'halted') {
      if (result.error.retry !== 'now') throw result.error;
      logger.warn({}, `${result.error.message}; retrying`);
      continue;
    }
    if (result.kind === 'idle' && result.reason === 'head-behind') await sleep(Math.min(pollIntervalMs, 100));
    if (!atHead(result)) continue;
    const confirm = await step();
    if (atHead(confirm)) return;
    if (confirm.kind === 'halted' && confirm.error.retry !== 'now') throw confirm.error;
  }
}
