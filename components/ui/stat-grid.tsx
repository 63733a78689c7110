import type { ReactNode } from 'react';

/** Labelled figures in a grid of small panels (token market stats, a creator's record). */
export function StatGrid({ label, stats }: { label: string; stats: { label: string; value: ReactNode }[] }) {
  return (
    <dl className="stats" aria-label={label}>
      {stats.map((stat) => (
        <div key={stat.label} className="stat panel">
          <dt>{stat.label}</dt>
          <dd>{stat.value}</dd>
        </div>
      ))}
    </dl>
  );
}
