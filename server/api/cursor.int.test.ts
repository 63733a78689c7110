import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, startAppServer } from '../_test/app-server';
import { availableBackends, createTestDatabase, type TestDatabase } from '../_test/database';
import {
  fixtureAddress,
  fixtureHash,
  fixtureToken,
  insertTokens,
  setCheckpoint,
  type TokenInsert,
} from '../_test/fixtures';
import { type Config, parseConfig } from '../config';
import { type DatabaseHandle, openDatabase, selectRows } from '../db/client';
import { createPartitionKeeper } from '../db/partitions';
import { balances, chainEvents, serviceSecrets, trades } from '../db/schema';
import { createFilesystemStore } from '../objects/store';
import { type CursorValue, encodeCursor } from './cursor';
import { searchListName } from './cursor-keys';
import { CURSOR_SECRET_NAME, getCursorSecret, resolveCursorSecret } from './cursor-secret';
import { createRestDispatcher, type RestDispatcher } from './rest/dispatch';
import { restRoutes } from './rest/registry';
import type { Context } from './trpc';

const backends = await availableBackends();
const WAD = 10n ** 18n;

interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  [key: string]: any;
}

/** One web instance: the real REST dispatcher over a context with its own resolved cursor key. */
interface Instance {
  cursorSecret: string;
  get(path: string): Promise<{ status: number; contentType: string | null; body: Json }>;
  walk(path: string, limit: number): Promise<Json[]>;
}

function instanceOver(handle: DatabaseHandle, config: Config, cursorSecret: string): Instance {
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
    context: async () => context,
  });
  const get = async (path: string) => {
    const response = await dispatcher.handle(new Request(`http://launchdex.test${path}`));
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

const token = (i: number) => fixtureAddress('token', i);
/** An address starting with 0xab, so a search for "ab" matches it by address only. */
const abAddress = (i: number) => `0xab${fixtureAddress('ab-token', i).slice(4)}` as `0x${string}`;
const wallet = fixtureAddress('wallet', 1);
const busy = token(0);
const creator = fixtureAddress('creator', 0);

/**
 * Tokens for every list: the plain fixtures (some linked, some trending, one excluded), five
 * visible "tur" matches of every term rank (two of them tied on market cap) plus an excluded one,
 * and "ab" matches of every rank including three by address prefix only.
 */
function fixtureTokens(): TokenInsert[] {
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
async function insertMarket(handle: DatabaseHandle): Promise<void> {
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

async function seed(database: TestDatabase): Promise<DatabaseHandle> {
  const handle = await database.open();
  await insertTokens(handle.db, fixtureTokens());
  await insertMarket(handle);
  await setCheckpoint(handle.db, 500);
  return handle;
}

async function storedSecrets(handle: DatabaseHandle): Promise<string[]> {
  const rows = await selectRows<{ value: string }>(
    handle.db,
    sql`select value from ${serviceSecrets} where name = ${CURSOR_SECRET_NAME}`,
  );
  return rows.map((row) => row.value);
}

const address = `0x${'ab'.repeat(20)}`;

/** Correctly signed keys that no row can have: each must be 400 invalid_cursor, never 500 or 200. */
const outOfRange = {
  chainPosition: [
    [150, 2 ** 31],
    [1e300, 0],
    [150, 1e300],
    [2 ** 53, 0],
    [-1, 0],
    [150, -1],
    [1.5, 0],
    [150, 0.5],
    ['150', 0],
    [150],
    [150, 0, 0],
    [],
  ],
  amountAndAddress: [
    ['1'.repeat(79), address],
    ['-1', address],
    ['1e300', address],
    ['1.5', address],
    [1000, address],
    ['1000', 'not-an-address'],
    ['1000', `0x${'zz'.repeat(20)}`],
    ['1000', address.toUpperCase()],
    ['1000', `${address}00`],
    ['1000'],
  ],
  progressAndAddress: [
    [10_001, address],
    [2 ** 31, address],
    [1e300, address],
    [-1, address],
    [0.5, address],
    [50, 'xyz'],
    [50],
  ],
  trending: [[0, address], [-1, address], [1e300, address], ['2', address], [2, `0x${'ab'.repeat(19)}`], [2]],
  search: [
    [5, '0', address],
    [-1, '0', address],
    [0.5, '0', address],
    [1e300, '0', address],
    [1, '1'.repeat(79), address],
    [1, '-1', address],
    [1, '0', 'not-an-address'],
    ['tur', 0, '0', address],
    [1, '0'],
  ],
  address: [[`0x${'ab'.repeat(19)}`], [`0x${'ZZ'.repeat(20)}`], [1], [address, address], []],
} satisfies Record<string, CursorValue[][]>;

describe.each(backends)('cursors on a real database (%s)', (backend) => {
  let database: TestDatabase;
  let other: TestDatabase;
  let handle: DatabaseHandle;
  let otherHandle: DatabaseHandle;
  let config: Config;
  let api: Instance;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    other = await createTestDatabase(backend);
    handle = await seed(database);
    otherHandle = await seed(other);
    config = parseConfig(database.env);
    api = instanceOver(handle, config, await resolveCursorSecret(config, handle.db));
  });

  afterAll(async () => {
    await handle?.close();
    await otherHandle?.close();
    await database?.drop();
    await other?.drop();
  });

  /** Every paginated route, the list name its cursors carry, an in-range key and out-of-range ones. */
  const paginatedRoutes = (): [string, string, CursorValue[], CursorValue[][]][] => [
    ['/api/v1/tokens', 'tokens.new', [120, 2], outOfRange.chainPosition],
    ['/api/v1/tokens/newest', 'tokens.new', [120, 2], outOfRange.chainPosition],
    ['/api/v1/tokens?view=linked', 'tokens.linked', [120, 2], outOfRange.chainPosition],
    [
      '/api/v1/tokens?view=top',
      'tokens.top',
      [(5000n * WAD).toString(), address],
      outOfRange.amountAndAddress,
    ],
    ['/api/v1/tokens?view=near', 'tokens.near', [5000, address], outOfRange.progressAndAddress],
    ['/api/v1/tokens/trending', 'tokens.trending', [2, address], outOfRange.trending],
    ['/api/v1/trending', 'tokens.trending', [2, address], outOfRange.trending],
    [
      '/api/v1/tokens/trending?search=tur',
      searchListName('tokens.trending', 'tur'),
      [0.6, address],
      outOfRange.trending,
    ],
    [
      '/api/v1/tokens?search=tur',
      searchListName('tokens.search', 'tur'),
      [1, '0', address],
      outOfRange.search,
    ],
    [
      '/api/v1/tokens/newest?search=0x',
      searchListName('tokens.search', '0x'),
      [4, '0', address],
      outOfRange.search,
    ],
    [`/api/v1/creators/${creator}/tokens`, `creator.tokens:${creator}`, [120, 2], outOfRange.chainPosition],
    [`/api/v1/tokens/${busy}/trades`, `trades:${busy}`, [202, 1], outOfRange.chainPosition],
    [`/api/v1/tokens/${busy}/activity`, `activity:${busy}:*`, [202, 1], outOfRange.chainPosition],
    [
      `/api/v1/tokens/${busy}/activity?kind=trade`,
      `activity:${busy}:trade`,
      [202, 1],
      outOfRange.chainPosition,
    ],
    [
      `/api/v1/tokens/${busy}/holders`,
      `holders:${busy}`,
      [(2n * WAD).toString(), address],
      outOfRange.amountAndAddress,
    ],
    [`/api/v1/wallets/${wallet}/holdings`, `holdings:${wallet}`, [token(3)], outOfRange.address],
  ];

  it('every paginated route: a signed cursor with an out-of-range key is 400 invalid_cursor with the JSON envelope', async () => {
    for (const [route, list, good, bads] of paginatedRoutes()) {
      const separator = route.includes('?') ? '&' : '?';
      const withCursor = (key: CursorValue[]) =>
        `${route}${separator}cursor=${encodeURIComponent(encodeCursor(list, key, api.cursorSecret, 0))}`;
      // The forgery is right: the same list and key, in range, is accepted.
      const accepted = await api.get(withCursor(good));
      expect(accepted.status, `${route} ${JSON.stringify(good)}: ${JSON.stringify(accepted.body)}`).toBe(200);
      for (const bad of bads) {
        const { status, contentType, body } = await api.get(withCursor(bad));
        const label = `${route} ${JSON.stringify(bad)}`;
        expect(status, `${label}: ${JSON.stringify(body)}`).toBe(400);
        expect(contentType, label).toMatch(/^application\/json/);
        expect(Object.keys(body), label).toEqual(['error']);
        expect(body.error.code, label).toBe('invalid_cursor');
        expect(typeof body.error.message, label).toBe('string');
      }
    }
  });

  it('every paginated route walks to the end at limit 3 with the cursors it hands out', async () => {
    for (const [route] of paginatedRoutes()) {
      const separator = route.includes('?') ? '&' : '?';
      const single = await api.get(`${route}${separator}limit=100`);
      expect(single.body.next_cursor, route).toBeNull();
      expect(await api.walk(route, 3), route).toEqual(single.body.items);
    }
  });

  it('"tur" finds its five visible matches, best rank first, ties by market cap then address', async () => {
    const { body } = await api.get('/api/v1/tokens?search=tur&limit=100');
    const [first, second, third, ...tied] = body.items.map((item: Json) => item.address);
    expect([first, second, third]).toEqual([token(30), token(31), token(32)]);
    expect(tied).toEqual([token(33), token(34)].sort().reverse());
  });

  it.each([
    '/api/v1/tokens?search=tur',
    '/api/v1/tokens/newest?search=tur',
    '/api/v1/tokens?search=%20TUR%20',
    '/api/v1/tokens?search=ab',
    '/api/v1/tokens?search=0xab',
    '/api/v1/tokens?search=0x',
    '/api/v1/tokens/newest?search=0x',
    '/api/v1/tokens/trending?search=tur',
    '/api/v1/tokens/trending?search=ab',
  ])('search pages at limits 1, 2 and 7 equal the single page of limit 100: %s', async (route) => {
    const single = await api.get(`${route}&limit=100`);
    expect(single.status).toBe(200);
    expect(single.body.next_cursor).toBeNull();
    expect(single.body.items.length).toBeGreaterThan(2);
    for (const limit of [1, 2, 7])
      expect(await api.walk(route, limit), `limit=${limit}`).toEqual(single.body.items);
  });

  it('"ab" ranks symbol, name and word matches before address-prefix matches, all reachable page by page', async () => {
    const all = (await api.get('/api/v1/tokens?search=ab&limit=100')).body.items.map(
      (item: Json) => item.address,
    );
    expect(all.slice(0, 3)).toEqual([token(36), token(37), token(38)]);
    expect(new Set(all.slice(3))).toEqual(new Set(all.filter((a: string) => a.startsWith('0xab'))));
    expect(all).toEqual(expect.arrayContaining([abAddress(1), abAddress(2), abAddress(3)]));
    // The address-prefix rank used to be outside the cursor's allowed ranks: page 2 was a 400.
    const first = await api.get('/api/v1/tokens?search=0x&limit=1');
    const second = await api.get(
      `/api/v1/tokens?search=0x&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    expect(second.status).toBe(200);
    expect(second.body.items).toHaveLength(1);
  });

  it('a cursor of one search is foreign to another search and to the trending search', async () => {
    const { body } = await api.get('/api/v1/tokens?search=tur&limit=1');
    const cursor = encodeURIComponent(body.next_cursor);
    for (const route of [
      '/api/v1/tokens?search=turb',
      '/api/v1/tokens?search=ab',
      '/api/v1/tokens/trending?search=tur',
    ]) {
      const answer = await api.get(`${route}&limit=1&cursor=${cursor}`);
      expect(answer.status, route).toBe(400);
      expect(answer.body.error.code, route).toBe('invalid_cursor');
    }
  });

  it('the generated key is created once: concurrent first loads agree on one stored row', async () => {
    const fresh = await createTestDatabase(backend);
    const first = await fresh.open();
    // PostgreSQL: a second pool is a second instance; PGlite allows one process per directory.
    const second = backend === 'postgres' ? await fresh.open() : first;
    try {
      expect(await storedSecrets(first)).toEqual([]);
      const loads = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          resolveCursorSecret({ cursorSecret: undefined }, (n % 2 ? second : first).db),
        ),
      );
      expect(new Set(loads).size).toBe(1);
      expect(loads[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await storedSecrets(first)).toEqual([loads[0]]);
      expect(await resolveCursorSecret({ cursorSecret: undefined }, first.db)).toBe(loads[0]);
    } finally {
      if (second !== first) await second.close();
      await first.close();
      await fresh.drop();
    }
  });

  // Read-only roles are a PostgreSQL feature: on PGlite the case does not exist (it is not skipped).
  if (backend === 'postgres')
    it('an instance on a read-only database (a replica) reads the stored key, and without one says what to do', async () => {
      const replica = await createTestDatabase(backend);
      const empty = await createTestDatabase(backend);
      // Migrated (and, for `replica`, given its key) on the "primary", then opened read-only.
      const openReadOnly = async (target: TestDatabase, createKey: boolean) => {
        const primary = await target.open();
        const created = createKey
          ? await resolveCursorSecret({ cursorSecret: undefined }, primary.db)
          : undefined;
        const name = new URL((target.config as { url: string }).url).pathname.slice(1);
        await primary.exec(`alter database "${name}" set default_transaction_read_only = on`);
        await primary.close();
        return { created, handle: await openDatabase(target.config, { max: 1 }) };
      };
      const withKey = await openReadOnly(replica, true);
      const withoutKey = await openReadOnly(empty, false);
      try {
        expect(await resolveCursorSecret({ cursorSecret: undefined }, withKey.handle.db)).toBe(
          withKey.created,
        );
        await expect(resolveCursorSecret({ cursorSecret: undefined }, withoutKey.handle.db)).rejects.toThrow(
          /read-only replica.*CURSOR_SECRET/,
        );
      } finally {
        await withKey.handle.close();
        await withoutKey.handle.close();
        await Promise.all([replica.drop(), empty.drop()]);
      }
    });

  it('instances sharing a database accept each other’s cursors; another database rejects them', async () => {
    const secondHandle = backend === 'postgres' ? await database.open() : handle;
    try {
      const second = instanceOver(secondHandle, config, await resolveCursorSecret(config, secondHandle.db));
      expect(second.cursorSecret).toBe(api.cursorSecret);
      const elsewhere = instanceOver(
        otherHandle,
        parseConfig(other.env),
        await resolveCursorSecret(config, otherHandle.db),
      );
      expect(elsewhere.cursorSecret).not.toBe(api.cursorSecret);
      for (const route of [
        '/api/v1/tokens?limit=5',
        '/api/v1/tokens?search=tur&limit=2',
        `/api/v1/tokens/${busy}/holders?limit=4`,
      ]) {
        const pageOne = await api.get(route);
        const cursor = encodeURIComponent(pageOne.body.next_cursor);
        const fromFirst = await api.get(`${route}&cursor=${cursor}`);
        const fromSecond = await second.get(`${route}&cursor=${cursor}`);
        expect(fromSecond.status, route).toBe(200);
        expect(fromSecond.body, route).toEqual(fromFirst.body);
        // Same data, same list, another deployment's key: foreign.
        const foreign = await elsewhere.get(`${route}&cursor=${cursor}`);
        expect(foreign.status, route).toBe(400);
        expect(foreign.body.error.code, route).toBe('invalid_cursor');
        const back = await api.get(
          `${route}&cursor=${encodeURIComponent((await elsewhere.get(route)).body.next_cursor)}`,
        );
        expect(back.status, route).toBe(400);
      }
    } finally {
      if (secondHandle !== handle) await secondHandle.close();
    }
  });

  it('a configured CURSOR_SECRET is used as is: deployments sharing it accept each other’s cursors', async () => {
    const shared = parseConfig({ ...database.env, CURSOR_SECRET: 'shared-operator-key-0123' });
    expect(await resolveCursorSecret(shared, otherHandle.db)).toBe('shared-operator-key-0123');
    const one = instanceOver(handle, shared, await resolveCursorSecret(shared, handle.db));
    const two = instanceOver(otherHandle, shared, await resolveCursorSecret(shared, otherHandle.db));
    const cursor = encodeURIComponent((await one.get('/api/v1/tokens?limit=5')).body.next_cursor);
    expect((await two.get(`/api/v1/tokens?limit=5&cursor=${cursor}`)).status).toBe(200);
    expect((await api.get(`/api/v1/tokens?limit=5&cursor=${cursor}`)).status).toBe(400);
  });

  it('the generated key survives a restart: a cursor from before still works after reopening', async () => {
    const cursor = encodeURIComponent((await api.get('/api/v1/tokens?limit=5')).body.next_cursor);
    const before = await api.get(`/api/v1/tokens?limit=5&cursor=${cursor}`);
    await handle.close();
    handle = await database.open();
    const restarted = instanceOver(handle, config, await resolveCursorSecret(config, handle.db));
    expect(restarted.cursorSecret).toBe(api.cursorSecret);
    expect((await restarted.get(`/api/v1/tokens?limit=5&cursor=${cursor}`)).body).toEqual(before.body);
    api = restarted;
  });
});

// getCursorSecret keeps one key per process, so this runs once, after the suites above (which
// never call it), on the first backend.
describe(`the process's cursor key (${backends[0]})`, () => {
  it('is loaded once and kept; a failed load is not kept', async () => {
    const backend = backends[0];
    if (!backend) throw new Error('no backend');
    const unreachable = await createTestDatabase(backend);
    const closedHandle = await unreachable.open();
    await closedHandle.close();
    const one = await createTestDatabase(backend);
    const two = await createTestDatabase(backend);
    const oneHandle = await one.open();
    const twoHandle = await two.open();
    try {
      await expect(getCursorSecret({ cursorSecret: undefined }, closedHandle.db)).rejects.toThrow();
      const secret = await getCursorSecret({ cursorSecret: undefined }, oneHandle.db);
      expect(await storedSecrets(oneHandle)).toEqual([secret]);
      // Later contexts reuse the promise: no second read, even of another database.
      expect(await getCursorSecret({ cursorSecret: undefined }, twoHandle.db)).toBe(secret);
      expect(await storedSecrets(twoHandle)).toEqual([]);
    } finally {
      await oneHandle.close();
      await twoHandle.close();
      await Promise.all([unreachable.drop(), one.drop(), two.drop()]);
    }
  });
});

// PGlite admits one process per database, so several real servers on one database means PostgreSQL.
if (backends.includes('postgres'))
  describe('real server processes (postgres)', () => {
    let shared: TestDatabase;
    let separate: TestDatabase;
    let servers: AppServer[] = [];

    beforeAll(async () => {
      shared = await createTestDatabase('postgres');
      separate = await createTestDatabase('postgres');
      await (await seed(shared)).close();
      await (await seed(separate)).close();
      servers = await Promise.all([
        startAppServer(shared.env),
        startAppServer(shared.env),
        startAppServer(separate.env),
      ]);
    });

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await shared?.drop();
      await separate?.drop();
    });

    it('two instances on one database generate one key and accept each other’s cursors; a third on another database rejects them', async () => {
      const [a, b, c] = servers as [AppServer, AppServer, AppServer];
      const get = async (server: AppServer, path: string) => {
        const response = await fetch(`${server.baseUrl}${path}`);
        return { status: response.status, body: (await response.json()) as Json };
      };
      // Both instances' first requests race to create the key.
      const [fromA, fromB] = await Promise.all([
        get(a, '/api/v1/tokens?search=tur&limit=2'),
        get(b, '/api/v1/tokens?limit=5'),
      ]);
      const handle = await shared.open();
      try {
        expect(await storedSecrets(handle)).toHaveLength(1);
      } finally {
        await handle.close();
      }
      for (const [page, path] of [
        [fromA, '/api/v1/tokens?search=tur&limit=2'],
        [fromB, '/api/v1/tokens?limit=5'],
      ] as const) {
        const cursor = `&cursor=${encodeURIComponent(page.body.next_cursor)}`;
        const onA = await get(a, `${path}${cursor}`);
        const onB = await get(b, `${path}${cursor}`);
        expect(onA.status, path).toBe(200);
        expect(onB.body, path).toEqual(onA.body);
        const onC = await get(c, `${path}${cursor}`);
        expect(onC.status, path).toBe(400);
        expect(onC.body.error.code, path).toBe('invalid_cursor');
      }
    });
  });
