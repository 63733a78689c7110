import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { CURSOR_SECRET_NAME, resolveCursorSecret } from '../server/api/cursor-secret';
import { createRestDispatcher, type RestDispatcher } from '../server/api/rest/dispatch';
import { restRoutes } from '../server/api/rest/registry';
import { answerWebRequest } from '../server/api/rest/web-request';
import type { Context } from '../server/api/trpc';
import { type Config, parseConfig } from '../server/config';
import { type DatabaseHandle, selectRows } from '../server/db/client';
import { createPartitionKeeper } from '../server/db/partitions';
import { balances, chainEvents, serviceSecrets, trades } from '../server/db/schema';
import { createLogger } from '../server/logger';
import { createFilesystemStore } from '../server/objects/store';
import type { TestDatabase } from './database';
import {
  fixtureAddress,
  fixtureHash,
  fixtureToken,
  insertTokens,
  setCheckpoint,
  type TokenInsert,
} from './fixtures';

/**
 * The world of the cursor suites (server/api/cursor-*.int.test.ts): web instances over a test
 * database through the real REST dispatcher, and a dataset that every paginated list pages through.
 */

export const WAD = 10n ** 18n;

export interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  [key: string]: any;
}

/** One web instance: the real REST dispatcher over a context with its own resolved cursor key. */
export interface Instance {
  cursorSecret: string;
  get(path: string): Promise<{ status: number; contentType: string | null; body: Json }>;
  walk(path: string, limit: number): Promise<Json[]>;
}

export function instanceOver(handle: DatabaseHandle, config: Config, cursorSecret: string): Instance {
  // What createRequestContext builds, over this test's database instead of the process's.
  const context = {
    transport: 'caller',
    db: handle.db,
    config,
    cursorSecret,
    clock: () => new Date(),
    objects: async () => createFilesystemStore(config.dataDir),
    fetchImage: async () => {
      throw new Error('no image fetches in cursor tests');
    },
    chain: () => undefined,
  } as Context;
  const dispatcher: RestDispatcher = createRestDispatcher(restRoutes, {
    context,
    logger: createLogger(config),
  });
  const get = async (path: string) => {
    const response = await answerWebRequest(dispatcher, new Request(`http://launchdex.test${path}`));
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: (text ? JSON.parse(text) : null) as Json,
    };
  };
  return {
    cursorSecret,
    get,
    async walk(path, limit) {
      const items: Json[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 500; page++) {
        const separator = path.includes('?') ? '&' : '?';
        const { status, body } = await get(
          `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(status, `${path} limit=${limit} page ${page}: ${JSON.stringify(body)}`).toBe(200);
        items.push(...body.items);
        cursor = body.next_cursor;
        if (cursor === null) return items;
      }
      throw new Error(`${path}: too many pages`);
    },
  };
}

export const token = (i: number) => fixtureAddress('token', i);
/** An address starting with 0xab, so a search for "ab" matches it by address only. */
export const abAddress = (i: number) => `0xab${fixtureAddress('ab-token', i).slice(4)}` as `0x${string}`;
export const wallet = fixtureAddress('wallet', 1);
export const busy = token(0);
export const creator = fixtureAddress('creator', 0);

/**
 * Tokens for every list: the plain fixtures (some linked, some trending, one excluded), five
 * visible "tur" matches of every term rank (two of them tied on market cap) plus an excluded one,
 * and "ab" matches of every rank including three by address prefix only.
 */
export function fixtureTokens(): TokenInsert[] {
  const rows: TokenInsert[] = [];
  for (let i = 0; i < 30; i++) {
    rows.push(
      fixtureToken(i, {
        hasLinks: i % 3 === 0,
        trendingScore: i % 4 === 0 ? 0 : 1 + ((i * 13) % 17) / 3,
        excluded: i === 7,
      }),
    );
  }
  const named = (i: number, name: string, symbol: string, extra: Partial<TokenInsert> = {}) =>
    fixtureToken(i, { name, symbol, trendingScore: 0.5 + i / 100, ...extra });
  const tiedCap = 777n * WAD;
  rows.push(
    named(30, 'Turbo', 'TUR'),
    named(31, 'Turtle Coin', 'TURT'),
    named(32, 'Turnip Farm', 'NIP'),
    named(33, 'Big Turkey', 'BGT', { marketCap: tiedCap }),
    named(34, 'Saturn Turbine', 'SAT', { marketCap: tiedCap }),
    named(35, 'Turquoise', 'TQ', { excluded: true }),
    named(36, 'Abba', 'AB'),
    named(37, 'Abacus', 'ABC'),
    named(38, 'Crab Absolute', 'CRAB'),
    named(39, 'Hex One', 'HX1', { address: abAddress(1) }),
    named(40, 'Hex Two', 'HX2', { address: abAddress(2) }),
    named(41, 'Hex Three', 'HX3', { address: abAddress(3), marketCap: tiedCap }),
  );
  return rows;
}

/** The trades, events and balances the per-token lists page through. */
export async function insertMarket(handle: DatabaseHandle): Promise<void> {
  const provenance = (n: number) => ({
    blockNumber: 200 + Math.floor(n / 3),
    blockHash: fixtureHash('block', 200 + Math.floor(n / 3)),
    blockTimestamp: 1_700_001_000 + n,
    transactionHash: fixtureHash('tx', 1_000 + n),
    transactionIndex: n % 3,
    logIndex: n % 3,
  });
  await createPartitionKeeper(handle.db).ensure(200, 210);
  await handle.db.insert(trades).values(
    Array.from({ length: 12 }, (_, n) => ({
      ...provenance(n),
      tokenAddress: busy,
      trader: fixtureAddress('trader', n % 4),
      side: n % 2 === 0 ? ('buy' as const) : ('sell' as const),
      source: 'curve' as const,
      tokenAmount: BigInt(n + 1) * WAD,
      reserveAmount: BigInt(n + 1) * 10n ** 15n,
      curveValue: BigInt(n + 1) * 10n ** 15n,
      protocolFee: 0n,
      creatorFee: 0n,
      price: 10n ** 12n,
    })),
  );
  await handle.db.insert(chainEvents).values(
    Array.from({ length: 15 }, (_, n) => ({
      ...provenance(n),
      tokenAddress: busy,
      kind: n % 2 === 0 ? 'trade' : 'transfer',
      data: { amount: String(n) },
    })),
  );
  await handle.db.insert(balances).values([
    ...Array.from({ length: 9 }, (_, n) => ({
      tokenAddress: busy,
      wallet: fixtureAddress('holder', n),
      balance: BigInt(1 + (n % 4)) * WAD,
      kind: 0,
    })),
    { tokenAddress: busy, wallet: fixtureAddress('curve', 0), balance: 10n ** 9n * WAD, kind: 1 },
    ...Array.from({ length: 8 }, (_, n) => ({
      tokenAddress: token(n + 1),
      wallet,
      balance: BigInt(n + 1) * WAD,
      kind: 0,
    })),
  ]);
}

/** Seeds `database` and builds the API over it, its cursors signed with the key the database holds. */
export async function seededInstance(
  database: TestDatabase,
): Promise<{ handle: DatabaseHandle; config: Config; api: Instance }> {
  const handle = await seed(database);
  const config = parseConfig(database.env);
  return { handle, config, api: instanceOver(handle, config, await resolveCursorSecret(config, handle.db)) };
}

export async function seed(database: TestDatabase): Promise<DatabaseHandle> {
  const handle = await database.open();
  await insertTokens(handle.db, fixtureTokens());
  await insertMarket(handle);
  await setCheckpoint(handle.db, 500);
  return handle;
}

export async function storedSecrets(handle: DatabaseHandle): Promise<string[]> {
  const rows = await selectRows<{ value: string }>(
    handle.db,
    sql`select value from ${serviceSecrets} where name = ${CURSOR_SECRET_NAME}`,
  );
  return rows.map((row) => row.value);
}
