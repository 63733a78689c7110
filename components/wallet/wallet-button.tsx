'use client';

import { useEffect, useId, useRef, useState } from 'react';
import { useConnection, useDisconnect, useSwitchChain } from 'wagmi';
import { shortAddress } from '@/components/ui/format';
import { ConnectorList, connectorLabel } from './connector-list';
import { chainLabel, usePublicChain } from './public-chain-context';
import { describeWalletError } from './wallet-errors';

/** The header's wallet control: connect, see the address and network, switch, disconnect. */
export function WalletButton() {
  const chain = usePublicChain();
  if (!chain) return null;
  return <WalletMenu chainId={chain.chainId} />;
}

function WalletMenu({ chainId }: { chainId: number }) {
  const connection = useConnection();
  const disconnect = useDisconnect();
  const switchChain = useSwitchChain();
  const [open, setOpen] = useState(false);
  const [mounted, setMounted] = useState(false);
  const menuId = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);

  // The connection is restored from storage after hydration; render the neutral state until then.
  useEffect(() => setMounted(true), []);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        toggleRef.current?.focus();
      }
    };
    const onPointer = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    rootRef.current?.querySelector<HTMLElement>('[data-wallet-menu] button')?.focus();
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open]);

  const connected = mounted && connection.status === 'connected';
  // Once a connection is made the menu has done its job; the toggle now shows the address.
  const openRef = useRef(open);
  openRef.current = open;
  useEffect(() => {
    if (!connected || !openRef.current) return;
    setOpen(false);
    // Focus was on a connector button that is now gone; keep it in the control.
    toggleRef.current?.focus();
  }, [connected]);
  const wrongChain = connected && connection.chainId !== chainId;
  const switchError = switchChain.error ? describeWalletError(switchChain.error, chainLabel(chainId)) : null;

  return (
    <div className="wallet" ref={rootRef}>
      <button
        ref={toggleRef}
        type="button"
        className={`button${connected ? '' : ' primary'}`}
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((value) => !value)}
      >
        {connected ? (
          <>
            <span className="mono" title={connection.address}>
              {shortAddress(connection.address)}
            </span>
            {wrongChain ? <span className="badge badge-bad">wrong network</span> : null}
            {connection.connector.type === 'devWallet' ? (
              <span className="badge">devnet test wallet</span>
            ) : null}
          </>
        ) : (
          'Connect wallet'
        )}
      </button>
      {open ? (
        <div className="wallet-menu panel" id={menuId} data-wallet-menu>
          {connected ? (
            <>
              <p className="small">
                Connected with {connectorLabel(connection.connector)}
                <br />
                <span className="mono">{connection.address}</span>
              </p>
              {wrongChain ? (
                <p className="small">
                  Your wallet is on chain {connection.chainId}; Launchdex uses {chainLabel(chainId)}.{' '}
                  <button
                    type="button"
                    className="button primary"
                    disabled={switchChain.isPending}
                    onClick={() => switchChain.mutate({ chainId })}
                  >
                    Switch network
                  </button>
                </p>
              ) : null}
              {switchError ? (
                <p role="alert" className="field-error">
                  {switchError}
                </p>
              ) : null}
              <button
                type="button"
                className="button"
                onClick={() => {
                  disconnect.mutate();
                  setOpen(false);
                  toggleRef.current?.focus();
                }}
              >
                Disconnect
              </button>
            </>
          ) : (
            <ConnectorList />
          )}
        </div>
      ) : null}
    </div>
  );
}
