'use client';

import { useRouter } from 'next/navigation';
import { useCallback, useRef, useState } from 'react';
import { type Address, type Hex, parseEventLogs } from 'viem';
import { useConfig, useConnection } from 'wagmi';
import { getConnection, signTypedData, switchChain } from 'wagmi/actions';
import { chainLabel } from '@/components/wallet/public-chain-context';
import { TransactionLostError, waitForReceipt } from '@/components/wallet/wait-for-receipt';
import { writeContractWithHeadroom } from '@/components/wallet/write-contract';
import { launchFactoryAbi } from '@/contracts/generated/abis.generated';
import type { PublicChain } from '@/shared/chain/public-chain';
import { finalizeDomain, finalizeTypes } from '@/shared/metadata/finalize-message';
import { postFinalize, uploadDraft } from '../../shared/launch/launch-api';
import {
  type LaunchProgress,
  LaunchRevertedError,
  type LaunchServices,
  type LaunchStep,
  runLaunch,
} from '../../shared/launch/launch-flow';
import type { ValidLaunch } from '../../shared/launch/launch-form-rules';
import { describeLaunchFailure } from './launch-errors';

/** Identifies what was validated, so a retry of the same launch resumes and an edited one restarts. */
function launchKey(launch: ValidLaunch, account: string | undefined): string {
  const file = launch.imageFile;
  return JSON.stringify([
    launch.fields,
    file ? [file.name, file.size, file.lastModified] : null,
    launch.firstBuy.toString(),
    account,
  ]);
}

export interface TokenLaunchState {
  step: LaunchStep | null;
  error: string | null;
  running: boolean;
  /** True when a failed launch can be resumed (a draft exists, or a transaction was sent). */
  resumable: boolean;
  /**
   * The launch transaction was lost (TransactionLostError): resuming waits for it again, and
   * `start(launch, { resend: true })` sends a new one instead.
   */
  lost: boolean;
}

/**
 * Runs launches with the connected wallet: the wagmi actions and REST calls behind
 * {@link runLaunch}, and on success the token page.
 */
export function useTokenLaunch(chain: PublicChain) {
  const config = useConfig();
  const connection = useConnection();
  const router = useRouter();
  const [state, setState] = useState<TokenLaunchState>({
    step: null,
    error: null,
    running: false,
    resumable: false,
    lost: false,
  });
  const progress = useRef<{ key: string; value: LaunchProgress } | null>(null);

  const start = useCallback(
    async (launch: ValidLaunch, options: { resend?: boolean } = {}) => {
      const key = launchKey(launch, connection.address);
      // A mined launch is never abandoned for an edit: its draft must still be finalized.
      if (progress.current?.key !== key && !progress.current?.value.token)
        progress.current = { key, value: {} };
      const current = progress.current ?? { key, value: {} };
      progress.current = current;
      // The person saw the transaction lost and chose a new one; the uploaded draft is kept.
      if (options.resend && !current.value.token) current.value.transactionHash = undefined;
      const services: LaunchServices = {
        uploadDraft: (l) => uploadDraft(l.fields, l.imageFile),
        async sendLaunch(l, metadataHash) {
          return writeContractWithHeadroom(config, {
            address: chain.factoryAddress,
            abi: launchFactoryAbi,
            functionName: 'launch',
            args: [l.name, l.symbol, l.initialSupply, metadataHash],
            value: l.firstBuy,
            chainId: chain.chainId,
          });
        },
        async waitForLaunch(hash) {
          const receipt = await waitForReceipt(config, chain.chainId, hash);
          if (receipt.status !== 'success') throw new LaunchRevertedError(`transaction ${hash} reverted`);
          const launched = parseEventLogs({
            abi: launchFactoryAbi,
            eventName: 'TokenLaunched',
            logs: receipt.logs,
          }).find((event) => event.address.toLowerCase() === chain.factoryAddress.toLowerCase());
          if (!launched) throw new LaunchRevertedError(`transaction ${hash} launched no token`);
          return {
            token: launched.args.token.toLowerCase() as Address,
            blockNumber: Number(receipt.blockNumber),
          };
        },
        signFinalize: (message) =>
          signTypedData(config, {
            domain: finalizeDomain(chain.chainId),
            types: finalizeTypes,
            primaryType: 'Finalize',
            message,
          }) as Promise<Hex>,
        postFinalize: (draftId, body) => postFinalize(draftId, body),
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      };
      let lastStep: LaunchStep | null = null;
      setState({ step: null, error: null, running: true, resumable: false, lost: false });
      try {
        // Before anything is uploaded: a wallet on another network is asked to switch first.
        if (getConnection(config).chainId !== chain.chainId)
          await switchChain(config, { chainId: chain.chainId });
        const token = await runLaunch(services, launch, current.value, (step) => {
          lastStep = step;
          setState((previous) => ({ ...previous, step }));
        });
        router.push(`/tokens/${token}`);
      } catch (error) {
        setState({
          step: lastStep,
          error: describeLaunchFailure(
            error,
            (lastStep as LaunchStep | null)?.kind ?? null,
            chainLabel(chain.chainId),
          ),
          running: false,
          resumable: Boolean(current.value.draft),
          lost: error instanceof TransactionLostError,
        });
      }
    },
    [config, connection.address, chain, router],
  );

  return { ...state, start, pendingToken: progress.current?.value.token ?? null };
}
