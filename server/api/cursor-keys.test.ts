import type { PgColumn } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { searchRank } from '../../shared/search-text';
import { expectAppError } from '../../test/expect-app-error';
import { balances, chainEvents, tokens, trades } from '../db/schema';
import { TRENDING_SCORE_MAX, trendingScore } from '../tokens/trending';
import { type CursorValue, decodeCursor, encodeCursor } from './cursor';
import {
  addressKey,
  addressOnlyKey,
  amountAndAddressKey,
  blockNumberKey,
  chainPositionKey,
  INT4_MAX,
  logIndexKey,
  progressAndAddressKey,
  progressBpsKey,
  searchKey,
  searchListName,
  searchRankKey,
  trendingKey,
  trendingScoreKey,
  uint256Key,
} from './cursor-keys';

const secret = 'unit-test-cursor-secret';
const address = `0x${'ab'.repeat(20)}`;
const INT8_MAX = 2n ** 63n - 1n;

function expectInvalidCursor(run: () => unknown, label: string) {
  expect(expectAppError(run, 'invalid_cursor', label).status, label).toBe(400);
}

/** Values JSON can carry that no integer column of ours may be compared with. */
const notNonNegativeIntegers: unknown[] = [-1, -0.5, 1.5, 1e300, -1e300, '1', null, true, [], {}];

describe('cursor key kinds: each value within its column range', () => {
  it('block numbers: integers 0 to 2^53 - 1 (bigint read in number mode)', () => {
    for (const ok of [0, 1, 19_000_000, Number.MAX_SAFE_INTEGER])
      expect(blockNumberKey.safeParse(ok).success).toBe(true);
    for (const bad of [...notNonNegativeIntegers, 2 ** 53, 2 ** 63])
      expect(blockNumberKey.safeParse(bad).success, String(bad)).toBe(false);
  });

  it('log indexes: integers 0 to 2^31 - 1 (int4)', () => {
    for (const ok of [0, 7, INT4_MAX]) expect(logIndexKey.safeParse(ok).success).toBe(true);
    for (const bad of [...notNonNegativeIntegers, 2 ** 31, 2 ** 32])
      expect(logIndexKey.safeParse(bad).success, String(bad)).toBe(false);
  });

  it('amounts: canonical decimal text of at most 78 digits (numeric(78,0))', () => {
    for (const ok of ['0', '1', '9'.repeat(78), (2n ** 256n - 1n).toString()])
      expect(uint256Key.safeParse(ok).success, ok).toBe(true);
    for (const bad of [
      '',
      '-1',
      '+1',
      '01',
      '1.5',
      '1e3',
      ' 1',
      '0x10',
      '9'.repeat(79),
      '1'.repeat(300),
      1,
      null,
    ])
      expect(uint256Key.safeParse(bad).success, String(bad)).toBe(false);
  });

  it('addresses: lowercase 0x-hex of 20 bytes, as stored', () => {
    expect(addressKey.safeParse(address).success).toBe(true);
    for (const bad of [
      address.toUpperCase(),
      `0x${'AB'.repeat(20)}`,
      `0x${'ab'.repeat(19)}`,
      `0x${'ab'.repeat(21)}`,
      `0x${'zz'.repeat(20)}`,
      'ab'.repeat(21),
      `${address}%`,
      '',
      1,
    ])
      expect(addressKey.safeParse(bad).success, String(bad)).toBe(false);
  });

  it('progress: basis points 0 to 10000', () => {
    for (const ok of [0, 5_000, 10_000]) expect(progressBpsKey.safeParse(ok).success).toBe(true);
    for (const bad of [...notNonNegativeIntegers, 10_001, 2 ** 31])
      expect(progressBpsKey.safeParse(bad).success, String(bad)).toBe(false);
  });

  it('trending scores: above 0 (the list holds no others) and at most the formula can reach', () => {
    const busiest = trendingScore({ volume: 10n ** 78n - 1n, trades: INT4_MAX, traders: INT4_MAX });
    expect(busiest).toBeLessThanOrEqual(TRENDING_SCORE_MAX);
    for (const ok of [1e-9, 0.69, 12.5, busiest]) expect(trendingScoreKey.safeParse(ok).success).toBe(true);
    for (const bad of [0, -0, -1, TRENDING_SCORE_MAX + 1, 1e300, '1', null])
      expect(trendingScoreKey.safeParse(bad).success, String(bad)).toBe(false);
  });

  it('search ranks: exactly the ranks the search assigns, address prefix included', () => {
    for (const rank of Object.values(searchRank)) expect(searchRankKey.safeParse(rank).success).toBe(true);
    expect(searchRank.addressPrefix).toBe(4);
    for (const bad of [-1, 5, 0.5, 1e300, '0', null])
      expect(searchRankKey.safeParse(bad).success, String(bad)).toBe(false);
  });

  // The bound of each kind must fit every column a cursor value of that kind is compared with.
  const columnsByKind: [string, { max: bigint; sqlType: string }, PgColumn[]][] = [
    [
      'block number',
      { max: BigInt(Number.MAX_SAFE_INTEGER), sqlType: 'bigint' },
      [tokens.createdBlock, trades.blockNumber, chainEvents.blockNumber],
    ],
    [
      'log index',
      { max: BigInt(INT4_MAX), sqlType: 'integer' },
      [tokens.createdLogIndex, trades.logIndex, chainEvents.logIndex],
    ],
    ['progress', { max: 10_000n, sqlType: 'integer' }, [tokens.progressBps]],
    ['amount', { max: 10n ** 78n - 1n, sqlType: 'numeric(78, 0)' }, [tokens.marketCap, balances.balance]],
  ];
  const sqlTypeMax: Record<string, bigint> = {
    bigint: INT8_MAX,
    integer: BigInt(INT4_MAX),
    'numeric(78, 0)': 10n ** 78n - 1n,
  };
  it.each(columnsByKind)('%s keys fit their columns’ SQL type', (_kind, bound, columns) => {
    for (const column of columns) {
      expect(column.getSQLType(), column.name).toBe(bound.sqlType);
      expect(bound.max <= (sqlTypeMax[bound.sqlType] as bigint), column.name).toBe(true);
    }
  });

  it('address and score keys are compared with text and double precision columns', () => {
    for (const column of [tokens.address, balances.wallet, balances.tokenAddress])
      expect(column.getSQLType(), column.name).toBe('text');
    expect(tokens.trendingScore.getSQLType()).toBe('double precision');
  });
});

describe('cursor keys of every list: a signed cursor with an out-of-range value is invalid_cursor', () => {
  const cases: [string, z.ZodType<CursorValue[]>, CursorValue[], CursorValue[][]][] = [
    [
      'chain position (new, linked, creator tokens, trades, activity)',
      chainPositionKey as z.ZodType<CursorValue[]>,
      [120, 3],
      [
        [2 ** 53, 0],
        [-1, 0],
        [1.5, 0],
        [1e300, 0],
        [100, 2 ** 31],
        [100, -1],
        [100, 0.5],
        ['100', 0],
        [100],
        [100, 0, 0],
        [],
      ],
    ],
    [
      'amount and address (top, holders)',
      amountAndAddressKey as z.ZodType<CursorValue[]>,
      ['1000', address],
      [
        ['1'.repeat(79), address],
        ['-1', address],
        ['1e3', address],
        ['1.5', address],
        [1000, address],
        ['1000', 'not-an-address'],
        ['1000', address.toUpperCase()],
        ['1000'],
        ['1000', address, address],
      ],
    ],
    [
      'progress and address (near)',
      progressAndAddressKey as z.ZodType<CursorValue[]>,
      [4_200, address],
      [
        [10_001, address],
        [2 ** 31, address],
        [-1, address],
        [0.5, address],
        [4_200, `0x${'g'.repeat(40)}`],
        [4_200],
      ],
    ],
    [
      'score and address (trending)',
      trendingKey as z.ZodType<CursorValue[]>,
      [3.25, address],
      [[0, address], [-2, address], [1e300, address], ['3.25', address], [3.25, `${address}00`], [3.25]],
    ],
    [
      'rank, market cap and address (search)',
      searchKey as z.ZodType<CursorValue[]>,
      [4, '0', address],
      [
        [5, '0', address],
        [-1, '0', address],
        [1.5, '0', address],
        ['1', '0', address],
        [1, '1'.repeat(79), address],
        [1, '0', 'x'],
        ['pepe', 1, '0', address],
        [1, '0'],
      ],
    ],
    [
      'token address (holdings)',
      addressOnlyKey as z.ZodType<CursorValue[]>,
      [address],
      [[`0x${'ab'.repeat(19)}`], [address.toUpperCase()], [1], [address, address], []],
    ],
  ];

  it.each(cases)('%s', (_label, schema, good, bads) => {
    expect(decodeCursor(encodeCursor('some.list', good, secret, 0), 'some.list', schema, secret)).toEqual(
      good,
    );
    for (const bad of bads)
      expectInvalidCursor(
        () => decodeCursor(encodeCursor('some.list', bad, secret, 0), 'some.list', schema, secret),
        JSON.stringify(bad),
      );
  });
});

describe('search list names', () => {
  it('differ between searches and stay the same length however long the search', () => {
    expect(searchListName('tokens.search', 'pep')).toBe(searchListName('tokens.search', 'pep'));
    expect(searchListName('tokens.search', 'pep')).not.toBe(searchListName('tokens.search', 'pepe'));
    expect(searchListName('tokens.search', 'pep')).not.toBe(searchListName('tokens.trending', 'pep'));
    // 63 bytes that NFKC expands to 693: the cursor must stay far below the 512-character limit.
    const expanded = '\uFDFA'.repeat(21).normalize('NFKC');
    expect(searchListName('tokens.search', expanded)).toHaveLength(
      searchListName('tokens.search', 'a').length,
    );
    const cursor = encodeCursor(
      searchListName('tokens.search', expanded),
      [4, '9'.repeat(78), address],
      secret,
      Number.MAX_SAFE_INTEGER,
    );
    expect(cursor.length).toBeLessThan(512);
  });
});
