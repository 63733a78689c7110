'use client';

import { type FormEvent, useState } from 'react';
import { useChains, useConnection } from 'wagmi';
import { ConnectorList } from '@/components/wallet/connector-list';
import type { PublicChain } from '@/shared/chain/public-chain';
import {
  type LaunchFormErrors,
  type LaunchFormField,
  type LaunchFormValues,
  validateLaunchForm,
} from '../../shared/launch/launch-form-rules';
import { ImageField } from './image-field';
import { LaunchStatus } from './launch-status';
import { TextField } from './text-field';
import { useTokenLaunch } from './use-token-launch';

const empty: LaunchFormValues = {
  name: '',
  symbol: '',
  description: '',
  supplyTokens: '1000000000',
  imageFile: null,
  imageUrl: '',
  website_url: '',
  x_url: '',
  telegram_url: '',
  discord_url: '',
  firstBuy: '',
};

/** Form controls in page order, to focus the first invalid one. */
const fieldOrder: LaunchFormField[] = [
  'name',
  'symbol',
  'supplyTokens',
  'description',
  'image',
  'imageUrl',
  'website_url',
  'x_url',
  'telegram_url',
  'discord_url',
  'firstBuy',
];

const links = [
  ['website_url', 'Website', 'https://…'],
  ['x_url', 'X (Twitter)', 'https://x.com/…'],
  ['telegram_url', 'Telegram', 'https://t.me/…'],
  ['discord_url', 'Discord', 'https://discord.gg/…'],
] as const;

/** The launch form: validated with the server's draft rules, then run step by step with the wallet. */
export function LaunchForm({ chain }: { chain: PublicChain }) {
  const connection = useConnection();
  const [nativeChain] = useChains();
  const launch = useTokenLaunch(chain);
  const [values, setValues] = useState<LaunchFormValues>(empty);
  const [errors, setErrors] = useState<LaunchFormErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const connected = connection.status === 'connected';
  const symbol = nativeChain?.nativeCurrency.symbol ?? 'native';

  const set =
    <K extends keyof LaunchFormValues>(key: K) =>
    (value: LaunchFormValues[K]) => {
      setValues((previous) => ({ ...previous, [key]: value }));
      setErrors((previous) => ({
        ...previous,
        [key === 'imageFile' || key === 'imageUrl' ? 'image' : key]: undefined,
      }));
    };

  function submit(event: FormEvent) {
    event.preventDefault();
    launchValidated();
  }

  /** Validates the form and starts (or resumes) the launch; `resend`: a new launch transaction. */
  function launchValidated(options: { resend?: boolean } = {}) {
    const result = validateLaunchForm(values, connection.address?.toLowerCase());
    if (!result.ok) {
      setErrors(result.errors);
      const count = Object.keys(result.errors).length;
      setFormError(
        `Please fix ${count === 1 ? 'the field' : `the ${count} fields`} marked above; nothing was uploaded.`,
      );
      const first = fieldOrder.find((field) => result.errors[field]);
      if (first) document.getElementById(first === 'image' ? 'imageFile' : first)?.focus();
      return;
    }
    setErrors({});
    if (!connected) {
      setFormError('Connect a wallet first: the launch transaction is sent from it.');
      return;
    }
    setFormError(null);
    void launch.start(result.launch, options);
  }

  const busy = launch.running;
  /** What every text control of the form shares: its id, value, error and change handler. */
  const textField = (key: Exclude<LaunchFormField, 'image'>) => ({
    id: key,
    error: errors[key],
    value: values[key],
    onChange: set(key),
    disabled: busy,
  });
  const label = busy
    ? 'Launching…'
    : launch.pendingToken
      ? 'Finalize the launch'
      : launch.lost
        ? 'Keep waiting'
        : launch.resumable
          ? 'Try again'
          : 'Launch token';

  return (
    <form className="launch-form" onSubmit={submit} noValidate>
      {!connected ? (
        <section className="panel launch-connect" aria-label="Connect a wallet">
          <h2>Connect a wallet</h2>
          <p className="small muted">The launch is sent and the metadata signed from your wallet.</p>
          <ConnectorList />
        </section>
      ) : null}
      <section className="panel launch-fields" aria-label="Token">
        <TextField {...textField('name')} label="Name" required />
        <TextField {...textField('symbol')} label="Symbol" required />
        <TextField
          {...textField('supplyTokens')}
          label="Initial supply (whole tokens)"
          hint="Tokens have 18 decimals; the whole supply starts on the bonding curve."
          inputMode="numeric"
          required
        />
        <TextField {...textField('description')} label="Description" multiline />
        <ImageField
          file={values.imageFile}
          url={values.imageUrl}
          error={errors.image ?? errors.imageUrl}
          disabled={busy}
          onFile={set('imageFile')}
          onUrl={set('imageUrl')}
        />
        <fieldset className="launch-links">
          <legend>Links (optional, http or https)</legend>
          {links.map(([key, text, placeholder]) => (
            <TextField key={key} {...textField(key)} label={text} type="url" placeholder={placeholder} />
          ))}
        </fieldset>
        <TextField
          {...textField('firstBuy')}
          label={`First buy (${symbol}, optional)`}
          hint="Bought on the curve in the launch transaction itself."
          inputMode="decimal"
          placeholder="0"
        />
        <p className="small muted">
          Names, images and links are supplied by creators and unverified. The draft is public once uploaded.
        </p>
        {formError ? (
          <p role="alert" className="field-error">
            {formError}
          </p>
        ) : null}
        {launch.error ? (
          <p role="alert" className="launch-error">
            {launch.error}
          </p>
        ) : null}
        <button type="submit" className="button primary" disabled={busy}>
          {label}
        </button>
        {launch.lost && !busy ? (
          <button type="button" className="button" onClick={() => launchValidated({ resend: true })}>
            Send a new launch transaction
          </button>
        ) : null}
      </section>
      <LaunchStatus step={launch.step} failed={launch.error !== null} />
    </form>
  );
}
