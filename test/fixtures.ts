import { createHash } from 'node:crypto';
import type { Database } from '../server/db/client';
import { PROJECTION_VERSION } from '../server/db/projection-tables';
import { CHECKPOINT_ID, indexerCheckpoint, tokenSearchTerms, tokens } from '../server/db/schema';
import { normalizeSearchText, searchTermsFor } from '../shared/search-text';

export type TokenInsert = typeof tokens.$inferInsert;

const WAD = 10n ** 18n;

/** A deterministic pseudo-address for fixture number `seed` in namespace `kind`. */
export function fixtureAddress(kind: string, seed: number): `0x${string}` {
  return `0x${createHash('sha256').update(`${kind}:${seed}`).digest('hex').slice(0, 40)}`;
}

export function fixtureHash(kind: string, seed: number): `0x${string}` {
  return `0x${createHash('sha256').update(`${kind}:${seed}`).digest('hex')}`;
}

/**
 * A complete, plausible token row: launched in block 100 + i, with curve state and metrics that
 * vary with i so every list order is exercised.
 */
export function fixtureToken(i: number, overrides: Partial<TokenInsert> = {}): TokenInsert {
  const name = overrides.name ?? `Fixture Token ${i}`;
  const symbol = overrides.symbol ?? `FIX${i}`;
  const realReserve = BigInt((i * 37) % 100) * WAD;
  const price = BigInt(1000 + ((i * 7919) % 5000)) * 10n ** 9n;
  const supply = 1_000_000_000n * WAD;
  return {
    address: fixtureAddress('token', i),
    curveAddress: fixtureAddress('curve', i),
    creator: fixtureAddress('creator', i % 3),
    name,
    symbol,
    nameSearch: normalizeSearchText(name),
    symbolSearch: normalizeSearchText(symbol),
    totalSupply: supply,
    metadataHash: fixtureHash('metadata', i),
    createdBlock: 100 + i,
    createdBlockHash: fixtureHash('block', 100 + i),
    createdAt: 1_700_000_000 + i * 12,
    createdTransactionHash: fixtureHash('tx', i),
    createdTransactionIndex: 0,
    createdLogIndex: 2,
    virtualTokenReserve: 1_073_000_000n * WAD,
    virtualReserve: 30n * WAD + realReserve,
    realTokenReserve: 793_100_000n * WAD,
    realReserve,
    graduationThreshold: 100n * WAD,
    curveSupply: 793_100_000n * WAD,
    progressBps: Number((realReserve * 10_000n) / (100n * WAD)),
    currentPrice: price,
    marketCap: (price * supply) / WAD,
    fullyDilutedValue: (price * supply) / WAD,
    holders: i % 11,
    trades24h: i % 5,
    ...overrides,
  };
}

/** Inserts tokens the way the indexer will: the row plus its search terms. */
export async function insertTokens(db: Database, rows: TokenInsert[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insert(tokens).values(rows);
  await db.insert(tokenSearchTerms).values(
    rows.flatMap((row) =>
      searchTermsFor(row.name, row.symbol).map(({ term, kind }) => ({
        term,
        kind,
        tokenAddress: row.address,
      })),
    ),
  );
}

export async function setCheckpoint(db: Database, block: number): Promise<void> {
  await db
    .insert(indexerCheckpoint)
    .values({
      id: CHECKPOINT_ID,
      chainId: 31337,
      indexedThroughBlock: block,
      blockHash: fixtureHash('block', block),
      blockTimestamp: 1_700_000_000 + block,
      // Fixture rows are what the current code would write: no start-up rebuild for them.
      projectionVersion: PROJECTION_VERSION,
    })
    .onConflictDoUpdate({ target: indexerCheckpoint.id, set: { indexedThroughBlock: block } });
}
