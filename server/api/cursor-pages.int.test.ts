import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  abAddress,
  busy,
  creator,
  type Instance,
  type Json,
  seededInstance,
  token,
  WAD,
  wallet,
} from '../../test/cursor-world';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import type { DatabaseHandle } from '../db/client';
import { type CursorValue, encodeCursor } from './cursor';
import { searchListName } from './cursor-keys';

const backends = await availableBackends();

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

describe.each(backends)('cursor pages on a real database (%s)', (backend) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let api: Instance;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    ({ handle, api } = await seededInstance(database));
  });

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
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
});
