'use client';

import { type FormEvent, useState } from 'react';
import type { Address } from 'viem';
import { useBalance, useConfig, useConnection, useReadContract } from 'wagmi';
import { waitForTransactionReceipt, writeContract } from 'wagmi/actions';
import { TextField } from '@/components/launch/text-field';
import { formatBps, formatNative, formatTokenAmount } from '@/components/ui/format';
import { ConnectorList } from '@/components/wallet/connector-list';
import { chainLabel, usePublicChain } from '@/components/wallet/public-chain-context';
import { bondingCurveAbi, launchFactoryAbi, launchTokenAbi } from '@/contracts/generated/abis.generated';
import {
  deadlineAfter,
  minimumOut,
  parseAmount,
  SLIPPAGE_MAX_BPS,
  SLIPPAGE_MIN_BPS,
} from '@/shared/trade/amounts';
import { describeTradeError } from './trade-errors';

type Side = 'buy' | 'sell';
type Status = { kind: 'idle' } | { kind: 'pending' | 'done' | 'error'; message: string };

/** Percent text ("1", "0.5") as basis points, or null outside what a trade may allow. */
function slippageBps(text: string): number | null {
  if (!/^\d{1,2}(\.\d{1,2})?$/.test(text.trim())) return null;
  const bps = Math.round(Number(text) * 100);
  return bps >= SLIPPAGE_MIN_BPS && bps <= SLIPPAGE_MAX_BPS ? bps : null;
}

/**
 * Buy and sell on the bonding curve with the connected wallet. The quote is the curve's own
 * (`quoteBuy` / `quoteSell` read from the chain, fees included); the trade carries the minimum
 * the slippage allows and a deadline, so the curve refuses it rather than fill it worse. Selling
 * needs no approval: the curve may take its own token.
 */
export function CurveTrade({ token, symbol }: { token: Address; symbol: string }) {
  const chain = usePublicChain();
  const config = useConfig();
  const connection = useConnection();
  const account = connection.status === 'connected' ? connection.address : undefined;
  const [side, setSide] = useState<Side>('buy');
  const [amountText, setAmountText] = useState('');
  const [slippageText, setSlippageText] = useState('1');
  const [deadlineText, setDeadlineText] = useState('10');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });

  const curve = useReadContract({
    address: chain?.factoryAddress,
    abi: launchFactoryAbi,
    functionName: 'curveOf',
    args: [token],
  });
  const amount = parseAmount(amountText);
  const quoting = Boolean(curve.data) && amount !== null && amount > 0n;
  const buyQuote = useReadContract({
    address: curve.data,
    abi: bondingCurveAbi,
    functionName: 'quoteBuy',
    args: [amount ?? 0n],
    query: { enabled: quoting && side === 'buy' },
  });
  const sellQuote = useReadContract({
    address: curve.data,
    abi: bondingCurveAbi,
    functionName: 'quoteSell',
    args: [amount ?? 0n],
    query: { enabled: quoting && side === 'sell' },
  });
  const protocolFee = useReadContract({
    address: curve.data,
    abi: bondingCurveAbi,
    functionName: 'protocolFeeBps',
    query: { enabled: Boolean(curve.data) },
  });
  const creatorFee = useReadContract({
    address: curve.data,
    abi: bondingCurveAbi,
    functionName: 'creatorFeeBps',
    query: { enabled: Boolean(curve.data) },
  });
  const tokenBalance = useReadContract({
    address: token,
    abi: launchTokenAbi,
    functionName: 'balanceOf',
    args: [account ?? '0x0000000000000000000000000000000000000000'],
    query: { enabled: Boolean(account) },
  });
  const nativeBalance = useBalance({ address: account, query: { enabled: Boolean(account) } });

  if (!chain) return null;
  const quote = side === 'buy' ? buyQuote : sellQuote;
  const feeBps = Number(protocolFee.data ?? 0) + Number(creatorFee.data ?? 0);
  const slippage = slippageBps(slippageText);
  const minutes = /^\d{1,4}$/.test(deadlineText.trim()) ? Number(deadlineText) : null;
  const busy = status.kind === 'pending';
  const balance = side === 'buy' ? nativeBalance.data?.value : tokenBalance.data;
  const errors = {
    amount:
      amountText.trim() === ''
        ? undefined
        : amount === null || amount === 0n
          ? 'Enter an amount above zero, with at most 18 decimals.'
          : balance !== undefined && amount > balance
            ? `More than your balance (${side === 'buy' ? formatNative(balance) : `${formatTokenAmount(balance)} ${symbol}`}).`
            : undefined,
    slippage: slippage === null ? 'Slippage is a percentage from 0.01 to 50.' : undefined,
    deadline:
      minutes === null || minutes < 1 ? 'The deadline is a whole number of minutes, at least 1.' : undefined,
  };
  const canSubmit =
    Boolean(account) &&
    !busy &&
    amount !== null &&
    amount > 0n &&
    quote.data !== undefined &&
    !errors.amount &&
    !errors.slippage &&
    !errors.deadline;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const curveAddress = curve.data;
    if (!canSubmit || !curveAddress || amount === null || quote.data === undefined || slippage === null)
      return;
    const min = minimumOut(quote.data, slippage);
    const deadline = deadlineAfter(minutes ?? 10);
    const chainId = chain?.chainId as number;
    setStatus({ kind: 'pending', message: 'Confirm the trade in your wallet…' });
    try {
      const hash =
        side === 'buy'
          ? await writeContract(config, {
              address: curveAddress,
              abi: bondingCurveAbi,
              functionName: 'buy',
              args: [min, deadline],
              value: amount,
              chainId,
            })
          : await writeContract(config, {
              address: curveAddress,
              abi: bondingCurveAbi,
              functionName: 'sell',
              args: [amount, min, deadline],
              chainId,
            });
      setStatus({ kind: 'pending', message: 'Waiting for the transaction to be mined…' });
      const receipt = await waitForTransactionReceipt(config, { hash, chainId });
      if (receipt.status !== 'success') throw new Error('The transaction was mined but reverted.');
      setStatus({
        kind: 'done',
        message: `${side === 'buy' ? 'Bought' : 'Sold'} in block #${receipt.blockNumber}. The trade appears below as soon as it is indexed.`,
      });
      setAmountText('');
      void tokenBalance.refetch();
      void nativeBalance.refetch();
    } catch (error) {
      setStatus({ kind: 'error', message: describeTradeError(error, chainLabel(chainId)) });
    }
  }

  return (
    <form className="trade-form" onSubmit={submit} noValidate aria-label={`Trade ${symbol}`}>
      <fieldset className="segmented">
        <legend className="sr-only">Side</legend>
        {(['buy', 'sell'] as const).map((value) => (
          <label key={value} className="segment">
            <input
              type="radio"
              name="trade-side"
              value={value}
              checked={side === value}
              disabled={busy}
              onChange={() => {
                setSide(value);
                setStatus({ kind: 'idle' });
              }}
            />
            <span>{value === 'buy' ? 'Buy' : 'Sell'}</span>
          </label>
        ))}
      </fieldset>
      <TextField
        id="trade-amount"
        label={side === 'buy' ? 'Pay (native)' : `Sell (${symbol})`}
        inputMode="decimal"
        placeholder="0.0"
        hint={
          balance === undefined
            ? undefined
            : `Balance: ${side === 'buy' ? formatNative(balance) : `${formatTokenAmount(balance)} ${symbol}`}`
        }
        error={errors.amount}
        value={amountText}
        onChange={(value) => {
          setAmountText(value);
          if (status.kind !== 'pending') setStatus({ kind: 'idle' });
        }}
        disabled={busy}
      />
      <div className="trade-settings">
        <TextField
          id="trade-slippage"
          label="Slippage (%)"
          inputMode="decimal"
          error={errors.slippage}
          value={slippageText}
          onChange={setSlippageText}
          disabled={busy}
        />
        <TextField
          id="trade-deadline"
          label="Deadline (minutes)"
          inputMode="numeric"
          error={errors.deadline}
          value={deadlineText}
          onChange={setDeadlineText}
          disabled={busy}
        />
      </div>
      <p className="small" data-testid="trade-quote" aria-live="polite">
        {quote.data !== undefined && amount !== null && amount > 0n && slippage !== null
          ? side === 'buy'
            ? `You receive about ${formatTokenAmount(quote.data)} ${symbol}, at least ${formatTokenAmount(minimumOut(quote.data, slippage))}. Fees ${formatBps(feeBps)} of what you pay.`
            : `You receive about ${formatNative(quote.data)}, at least ${formatNative(minimumOut(quote.data, slippage))}, after ${formatBps(feeBps)} fees.`
          : quote.isFetching
            ? 'Quoting…'
            : 'Enter an amount for a quote from the curve.'}
      </p>
      {account ? (
        <button type="submit" className="button primary" disabled={!canSubmit}>
          {side === 'buy' ? `Buy ${symbol}` : `Sell ${symbol}`}
        </button>
      ) : (
        <div className="trade-connect">
          <p className="small muted">Connect a wallet to trade.</p>
          <ConnectorList />
        </div>
      )}
      {status.kind === 'error' ? (
        <p role="alert" className="field-error">
          {status.message}
        </p>
      ) : status.kind !== 'idle' ? (
        <p role="status" className="small">
          {status.message}
        </p>
      ) : null}
    </form>
  );
}
