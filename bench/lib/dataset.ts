import { spawnSync } from 'node:child_process';
import path from 'node:path';
import postgres from 'postgres';
import { SEED_VERSION } from './seed-sql';

const root = path.resolve(import.meta.dirname, '../..');

/** What `npm run seed:scale` recorded on a database it filled (`comment on database`). */
export interface SeedRecord {
  version: number;
  tokens: number;
  trades: number;
  seconds: number;
  date: string;
}

function parseRecord(comment: string | null | undefined): SeedRecord | null {
  const match = /^launchdex seed-scale v(\d+) tokens=(\d+) trades=(\d+) seconds=(\d+) date=(\S+)$/.exec(
    comment ?? '',
  );
  if (!match) return null;
  const [version = 0, tokens = 0, trades = 0, seconds = 0] = match.slice(1, 5).map(Number);
  return { version, tokens, trades, seconds, date: match[5] as string };
}

/** `node`'s arguments that fill a database with `npm run seed:scale`'s dataset. */
export const seedScaleArgs = (databaseUrl: string, tokens: number | string, trades: number | string) => [
  '--import',
  'tsx',
  'bench/seed-scale.ts',
  '--database-url',
  databaseUrl,
  '--tokens',
  String(tokens),
  '--trades',
  String(trades),
];

/**
 * The benchmark database with exactly this dataset: reused when its seed record matches (same
 * generator version, token and trade counts), else dropped, created and seeded anew
 * (bench/seed-scale.ts, printed as it goes). An interrupted seed leaves no record, so it is redone.
 */
export async function ensureDataset(
  databaseUrl: string,
  tokens: number,
  trades: number,
  justSeeded = false,
): Promise<SeedRecord> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin<{ comment: string | null }[]>`
      select shobj_description(oid, 'pg_database') as comment from pg_database where datname = ${name}`;
    const record = parseRecord(row?.comment);
    if (record && record.version === SEED_VERSION && record.tokens === tokens && record.trades === trades) {
      console.log(
        `▶ ${name} holds the dataset (${tokens.toLocaleString('en-US')} tokens / ${trades.toLocaleString('en-US')} trades, seeded ${record.date} in ${record.seconds} s)`,
      );
      return record;
    }
    if (justSeeded) throw new Error(`seed:scale finished but left no matching record on ${name}`);
    if (row) {
      console.log(
        `▶ ${name} holds ${record ? `another dataset (v${record.version}, ${record.tokens} tokens / ${record.trades} trades)` : 'no complete seed'}: dropping it`,
      );
      await admin.unsafe(`drop database "${name}" with (force)`);
    }
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  console.log(
    `▶ seeding ${name}: ${tokens.toLocaleString('en-US')} tokens, ${trades.toLocaleString('en-US')} trades`,
  );
  const seeded = spawnSync(process.execPath, seedScaleArgs(databaseUrl, tokens, trades), {
    cwd: root,
    stdio: 'inherit',
  });
  if (seeded.status !== 0) throw new Error(`seed:scale failed with ${seeded.status}`);
  return ensureDataset(databaseUrl, tokens, trades, true);
}
