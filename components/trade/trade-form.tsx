'use client';

import { type FormEvent, useState } from 'react';
import type { Address } from 'viem';
import { useBalance, useConfig, useConnection, useReadContract } from 'wagmi';
import { getBlock } from 'wagmi/actions';
import { TextField } from '@/components/launch/text-field';
import { formatNative, formatTokenAmount } from '@/components/ui/format';
import { Segmented } from '@/components/ui/segmented';
import { ConnectorList } from '@/components/wallet/connector-list';
import { chainLabel, usePublicChain } from '@/components/wallet/public-chain-context';
import { launchTokenAbi } from '@/contracts/generated/abis.generated';
import type { PublicChain } from '@/shared/chain/public-chain';
import {
  deadlineAfter,
  minimumOut,
  parseAmount,
  SLIPPAGE_MAX_BPS,
  SLIPPAGE_MIN_BPS,
} from '@/shared/trade/amounts';
import { useCurveVenue } from './curve-venue';
import { usePoolVenue } from './pool-venue';
import { describeTradeError } from './trade-errors';
import { minedBlock, type Side, TradeTransactionLostError, type Venue } from './venue';

type Status =
  | { kind: 'idle' }
  | { kind: 'pending' | 'done' | 'error'; message: string }
  /** A transaction the wait gave up on: the form offers to keep waiting for it. */
  | { kind: 'lost'; message: string; lost: TradeTransactionLostError };

/** Percent text ("1", "0.5") as basis points, or null outside what a trade may allow. */
function slippageBps(text: string): number | null {
  if (!/^\d{1,2}(\.\d{1,2})?$/.test(text.trim())) return null;
  const bps = Math.round(Number(text) * 100);
  return bps >= SLIPPAGE_MIN_BPS && bps <= SLIPPAGE_MAX_BPS ? bps : null;
}

export interface TradeTarget {
  token: Address;
  symbol: string;
  /** The Uniswap V3 pool once the token graduated; until then the curve is the venue. */
  pool: Address | null;
}

/** The trade form for whichever venue the token trades on (a wallet island's content). */
export function TradeForm({ target }: { target: TradeTarget }) {
  const chain = usePublicChain();
  if (!chain) return null;
  if (target.pool && !chain.routerAddress)
    return (
      <p className="muted small">
        {target.symbol} trades on its Uniswap V3 pool; this server has no swap router configured for it.
      </p>
    );
  return target.pool && chain.routerAddress ? (
    <PoolForm chain={chain} target={{ ...target, pool: target.pool }} router={chain.routerAddress} />
  ) : (
    <CurveForm chain={chain} target={target} />
  );
}

/** What the form holds that its venue needs: the side and the amount, and the connected wallet. */
function useTradeInput() {
  const connection = useConnection();
  const [side, setSide] = useState<Side>('buy');
  const [amountText, setAmountText] = useState('');
  return {
    side,
    setSide,
    amountText,
    setAmountText,
    amount: parseAmount(amountText),
    account: connection.status === 'connected' ? connection.address : undefined,
  };
}

type TradeInput = ReturnType<typeof useTradeInput>;

function CurveForm({ chain, target }: { chain: PublicChain; target: TradeTarget }) {
  const input = useTradeInput();
  const venue = useCurveVenue(chain, { token: target.token, side: input.side, amount: input.amount });
  return <Form chain={chain} target={target} venue={venue} input={input} venueName="the curve" />;
}

function PoolForm({
  chain,
  target,
  router,
}: {
  chain: PublicChain;
  target: TradeTarget & { pool: Address };
  router: Address;
}) {
  const input = useTradeInput();
  const venue = usePoolVenue(chain, {
    token: target.token,
    pool: target.pool,
    router,
    account: input.account,
    side: input.side,
    amount: input.amount,
  });
  return <Form chain={chain} target={target} venue={venue} input={input} venueName="the Uniswap V3 pool" />;
}

/** What the wallet holds of what each side pays: native value for a buy, the token for a sale. */
function useWalletBalances(token: Address, account: Address | undefined) {
  const native = useBalance({ address: account, query: { enabled: Boolean(account) } });
  const held = useReadContract({
    address: token,
    abi: launchTokenAbi,
    functionName: 'balanceOf',
    args: [account ?? '0x0000000000000000000000000000000000000000'],
    query: { enabled: Boolean(account) },
  });
  return {
    buy: native.data?.value,
    sell: held.data,
    refetch() {
      void native.refetch();
      void held.refetch();
    },
  };
}

function Form({
  chain,
  target,
  venue,
  input: form,
  venueName,
}: {
  chain: PublicChain;
  target: TradeTarget;
  venue: Venue;
  input: TradeInput;
  venueName: string;
}) {
  const { symbol } = target;
  const [slippageText, setSlippageText] = useState('1');
  const [deadlineText, setDeadlineText] = useState('10');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const config = useConfig();
  const { side, amount, account } = form;
  const slippage = slippageBps(slippageText);
  const minutes = /^\d{1,4}$/.test(deadlineText.trim()) ? Number(deadlineText) : null;
  const busy = status.kind === 'pending';
  const balances = useWalletBalances(target.token, account);
  const balance = balances[side];
  const formatToken = (value: bigint) => `${formatTokenAmount(value)} ${symbol}`;
  // Buys pay native value and return tokens; sales the other way round.
  const formatInput = (value: bigint) => (side === 'buy' ? formatNative(value) : formatToken(value));
  const formatOutput = (value: bigint) => (side === 'buy' ? formatToken(value) : formatNative(value));
  const errors = {
    amount:
      form.amountText.trim() === ''
        ? undefined
        : amount === null || amount === 0n
          ? 'Enter an amount above zero, with at most 18 decimals.'
          : balance !== undefined && amount > balance
            ? `More than your balance (${formatInput(balance)}).`
            : undefined,
    slippage: slippage === null ? 'Slippage is a percentage from 0.01 to 50.' : undefined,
    deadline:
      minutes === null || minutes < 1 ? 'The deadline is a whole number of minutes, at least 1.' : undefined,
  };
  const ready =
    Boolean(account) &&
    !busy &&
    amount !== null &&
    amount > 0n &&
    venue.quote !== undefined &&
    venue.quote > 0n &&
    !errors.amount &&
    !errors.slippage &&
    !errors.deadline;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!ready || amount === null || venue.quote === undefined || slippage === null) return;
    const min = minimumOut(venue.quote, slippage);
    try {
      setStatus({ kind: 'pending', message: 'Preparing the trade…' });
      // The deadline counts from the chain's clock, which may run ahead of this computer's (a
      // devnet whose time was moved, a clock that lags).
      const latest = await getBlock(config, { chainId: chain.chainId });
      const now = Math.max(Math.floor(Date.now() / 1000), Number(latest.timestamp));
      const block = await venue.send(side, amount, min, deadlineAfter(minutes ?? 10, now), (message) =>
        setStatus({ kind: 'pending', message }),
      );
      traded(block);
    } catch (error) {
      failed(error);
    }
  }

  /** Waits again for a transaction the wait gave up on (the wallet may still have it pending). */
  async function keepWaiting(lost: TradeTransactionLostError) {
    try {
      setStatus({ kind: 'pending', message: 'Waiting for the transaction to be mined…' });
      traded(await minedBlock(config, chain.chainId, lost.hash, lost.before), lost.before);
    } catch (error) {
      failed(error);
    }
  }

  /** The trade mined in `block`, or only the wrap or approval it needed first (`before`). */
  function traded(block: bigint, before?: TradeTransactionLostError['before']) {
    setStatus({
      kind: 'done',
      message: before
        ? `The ${before} was mined in block #${block}. Send the trade again to make it.`
        : `${side === 'buy' ? 'Bought' : 'Sold'} in block #${block}. The trade appears below as soon as it is indexed.`,
    });
    if (!before) form.setAmountText('');
    balances.refetch();
    venue.refresh?.();
  }

  function failed(error: unknown) {
    const message = describeTradeError(error, chainLabel(chain.chainId));
    setStatus(
      error instanceof TradeTransactionLostError
        ? { kind: 'lost', message, lost: error }
        : { kind: 'error', message },
    );
  }

  const entered = amount !== null && amount > 0n;
  const quoteText =
    venue.quote !== undefined && entered && slippage !== null
      ? `You receive about ${formatOutput(venue.quote)}, at least ${formatOutput(minimumOut(venue.quote, slippage))}. ${venue.feeNote}`
      : entered && venue.quoteProblem
        ? venue.quoteProblem
        : venue.quoting
          ? 'Quoting…'
          : `Enter an amount for a quote from ${venueName}.`;

  return (
    <form className="trade-form" onSubmit={submit} noValidate aria-label={`Trade ${symbol}`}>
      <p className="small muted">Trades on {venueName}.</p>
      <Segmented
        legend="Side"
        name="trade-side"
        options={['buy', 'sell'] as const}
        value={side}
        disabled={busy}
        label={(value) => (value === 'buy' ? 'Buy' : 'Sell')}
        onChange={(value) => {
          form.setSide(value);
          setStatus({ kind: 'idle' });
        }}
      />
      <TextField
        id="trade-amount"
        label={side === 'buy' ? 'Pay (native)' : `Sell (${symbol})`}
        inputMode="decimal"
        placeholder="0.0"
        hint={balance === undefined ? undefined : `Balance: ${formatInput(balance)}`}
        error={errors.amount}
        value={form.amountText}
        onChange={(value) => {
          form.setAmountText(value);
          if (!busy) setStatus({ kind: 'idle' });
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
        {quoteText}
      </p>
      {entered && venue.quote !== undefined && venue.quoteNote ? (
        <p className="small trade-note" data-testid="trade-quote-note" aria-live="polite">
          {venue.quoteNote}
        </p>
      ) : null}
      {account ? (
        <button type="submit" className="button primary" disabled={!ready}>
          {side === 'buy' ? `Buy ${symbol}` : `Sell ${symbol}`}
        </button>
      ) : (
        <div className="trade-connect">
          <p className="small muted">Connect a wallet to trade.</p>
          <ConnectorList />
        </div>
      )}
      {status.kind === 'error' || status.kind === 'lost' ? (
        <p role="alert" className="field-error">
          {status.message}
        </p>
      ) : null}
      {status.kind === 'lost' ? (
        <button type="button" className="button" onClick={() => void keepWaiting(status.lost)}>
          Keep waiting
        </button>
      ) : status.kind === 'pending' || status.kind === 'done' ? (
        <p role="status" className="small">
          {status.message}
        </p>
      ) : null}
    </form>
  );
}
