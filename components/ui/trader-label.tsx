import { type TraderLabel, traderLabels } from '@/shared/api/enums';

/** The short names and the definitions of docs/api.md "Traders, PnL and labels", for people. */
export const traderLabelText: Record<TraderLabel, { name: string; definition: string }> = {
  creator: { name: 'Creator', definition: "The token's creator: the wallet that launched it." },
  sniper: {
    name: 'Sniper',
    definition:
      'Got tokens bought within the first few blocks of the launch (the launch block included), by its own buy or handed on by the contract that bought them.',
  },
  bundler: {
    name: 'Bundler',
    definition:
      'Got tokens in the launch block together with several other wallets (the creator not counted), or in one transaction whose bought tokens went to several wallets (a contract buying for them).',
  },
  creator_linked: {
    name: 'Creator-linked',
    definition:
      'Received the token from the creator, or native coin from it (directly or through a wallet it paid) shortly before its first buy.',
  },
};

/**
 * A trader's labels as small badges; each carries its definition as a tooltip and, for screen
 * readers (which do not read `title` reliably), as hidden text.
 */
export function TraderLabels({ labels }: { labels: readonly TraderLabel[] }) {
  if (labels.length === 0) return null;
  return (
    <span className="trader-labels">
      {traderLabels
        .filter((label) => labels.includes(label))
        .map((label) => (
          <span
            key={label}
            className={`badge trader-label trader-label-${label}`}
            title={traderLabelText[label].definition}
            data-label={label}
          >
            {traderLabelText[label].name}
            <span className="sr-only">: {traderLabelText[label].definition}</span>
          </span>
        ))}
    </span>
  );
}
