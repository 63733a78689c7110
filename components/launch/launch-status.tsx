'use client';

import { useEffect, useRef } from 'react';
import type { LaunchStep } from '../../shared/launch/launch-flow';

const order = ['upload', 'confirm', 'receipt', 'sign', 'finalize', 'done'] as const;
const titles: Record<(typeof order)[number], string> = {
  upload: 'Upload the draft',
  confirm: 'Confirm the launch in your wallet',
  receipt: 'Wait for the transaction receipt',
  sign: 'Sign the finalize message',
  finalize: 'Finalize the metadata',
  done: 'Open the token page',
};

const rank = (kind: LaunchStep['kind']) =>
  order.indexOf(kind === 'indexing' || kind === 'rate-limited' ? 'finalize' : kind);

/** One sentence for the live region: what is happening now. */
export function describeStep(step: LaunchStep): string {
  switch (step.kind) {
    case 'upload':
      return 'Uploading the draft and its image…';
    case 'confirm':
      return 'Confirm the launch transaction in your wallet.';
    case 'receipt':
      return `Waiting for the receipt of transaction ${step.transactionHash}…`;
    case 'sign':
      return 'Sign the finalize message in your wallet (no fee).';
    case 'finalize':
      return 'Finalizing the metadata…';
    case 'indexing': {
      const through = step.indexedThroughBlock ?? 'none';
      const of = step.launchBlock === null ? '' : ` of ${step.launchBlock}`;
      return `Waiting for the index: indexed through block ${through}${of}. Retrying in ${Math.ceil(step.retryInMs / 1000)} s.`;
    }
    case 'rate-limited':
      return `The server asks us to slow down; retrying in ${Math.ceil(step.retryInMs / 1000)} s.`;
    case 'done':
      return 'Launched and finalized. Opening the token page…';
  }
}

/**
 * The steps of a launch with the current one marked. The live region is rendered from the start
 * (empty), so assistive technology announces every later change of step.
 */
export function LaunchStatus({ step, failed }: { step: LaunchStep | null; failed: boolean }) {
  const current = step ? rank(step.kind) : -1;
  const ref = useRef<HTMLElement>(null);
  const started = step !== null;
  // The form is long: bring the progress into view when a launch starts.
  useEffect(() => {
    if (started) ref.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [started]);
  return (
    <section
      ref={ref}
      className={step ? 'launch-status panel' : 'launch-status'}
      aria-label="Launch progress"
    >
      {step ? (
        <ol>
          {order.map((kind, index) => {
            const state =
              index < current || step.kind === 'done'
                ? 'done'
                : index === current
                  ? failed
                    ? 'failed'
                    : 'current'
                  : 'pending';
            return (
              <li key={kind} data-state={state} aria-current={state === 'current' ? 'step' : undefined}>
                {titles[kind]}
                {kind === 'finalize' && step.kind === 'indexing' ? ' — waiting for the index' : null}
                <span className="sr-only">{` (${state})`}</span>
              </li>
            );
          })}
        </ol>
      ) : null}
      <p role="status" className="launch-status-line">
        {step ? describeStep(step) : ''}
      </p>
    </section>
  );
}
