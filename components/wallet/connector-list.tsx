'use client';

import { type Connector, useConnect, useConnectors } from 'wagmi';
import { chainLabel, usePublicChain } from './public-chain-context';
import { describeWalletError } from './wallet-errors';

/** How a connector is named to people; the test wallet always says what it is. */
export function connectorLabel(connector: Pick<Connector, 'id' | 'name' | 'type'>): string {
  if (connector.type === 'devWallet') return 'Devnet test wallet (public anvil test key)';
  if (connector.id === 'injected') return 'Browser wallet';
  return connector.name;
}

/** One button per available wallet; the failure of the last attempt in plain words. */
export function ConnectorList() {
  const chain = usePublicChain();
  const connectors = useConnectors();
  const connect = useConnect();
  const error = connect.error
    ? (describeWalletError(connect.error, chainLabel(chain?.chainId ?? 0)) ?? 'The wallet could not connect.')
    : null;
  return (
    <div className="connector-list">
      <ul>
        {connectors.map((connector) => (
          <li key={connector.uid}>
            <button
              type="button"
              className="button"
              disabled={connect.isPending}
              onClick={() => connect.mutate({ connector })}
            >
              {connectorLabel(connector)}
            </button>
            {connector.type === 'devWallet' ? (
              <p className="small muted">
                For the local devnet only: its key is public, never use it elsewhere.
              </p>
            ) : null}
          </li>
        ))}
      </ul>
      {error ? (
        <p role="alert" className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
