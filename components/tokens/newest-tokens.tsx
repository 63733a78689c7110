'use client';

import { useTokenListQuery } from './use-token-list-query';

export function NewestTokens() {
  const { data, error, isPending } = useTokenListQuery({ limit: 20 });
  if (isPending) return <p aria-busy="true">Loading tokens…</p>;
  if (error) return <p role="alert">Could not load tokens: {error.message}</p>;
  if (data.items.length === 0) {
    return (
      <section className="panel" aria-label="Newest tokens">
        <p data-testid="empty-token-list">No tokens indexed yet.</p>
      </section>
    );
  }
  return (
    <section className="panel" aria-label="Newest tokens">
      <table>
        <thead>
          <tr>
            <th scope="col">Token</th>
            <th scope="col">Symbol</th>
            <th scope="col">Lifecycle</th>
            <th scope="col">Holders</th>
          </tr>
        </thead>
        <tbody>
          {data.items.map((token) => (
            <tr key={token.address}>
              <td>{token.name}</td>
              <td>{token.symbol}</td>
              <td>{token.lifecycle}</td>
              <td>{token.holders}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
