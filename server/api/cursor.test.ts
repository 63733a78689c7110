import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectAppError } from '../../test/expect-app-error';
import { cursorBlock, decodeCursor, decodeCursorIfAny, encodeCursor, keysetPage } from './cursor';

const key = z.tuple([z.number().int(), z.number().int()]);
const secret = 'test-secret';

function expectInvalid(run: () => unknown) {
  expect(expectAppError(run, 'invalid_cursor').status).toBe(400);
}

/** A cursor signed the way the server signs, over any payload (what a leaked key could make). */
function signed(version: 'v1' | 'v2', payload: unknown, key = secret): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const macOf = version === 'v1' ? body : `${version}.${body}`;
  const mac = createHmac('sha256', key).update(macOf).digest().subarray(0, 12).toString('base64url');
  return `${version}.${body}.${mac}`;
}

describe('keyset cursor codec', () => {
  it('round-trips the key of its own list', () => {
    const cursor = encodeCursor('tokens.new', [123, 4], secret, 900);
    expect(decodeCursor(cursor, 'tokens.new', key, secret)).toEqual([123, 4]);
  });

  it('no cursor is the first page (no key); a cursor decodes or is refused as decodeCursor does', () => {
    expect(decodeCursorIfAny(undefined, 'tokens.new', key, secret)).toBeUndefined();
    const cursor = encodeCursor('tokens.new', [123, 4], secret, 900);
    expect(decodeCursorIfAny(cursor, 'tokens.new', key, secret)).toEqual([123, 4]);
    expectInvalid(() => decodeCursorIfAny(cursor, 'tokens.top', key, secret));
  });

  it('is opaque: url-safe text with a version prefix, no raw key or block visible', () => {
    const cursor = encodeCursor('tokens.new', [123, 4], secret, 98765);
    expect(cursor).toMatch(/^v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('123');
    expect(cursor).not.toContain('98765');
  });

  it('carries the block of the answer that issued it (the next read’s min_block)', () => {
    expect(cursorBlock(encodeCursor('tokens.new', [1, 2], secret, 0))).toBe(0);
    expect(cursorBlock(encodeCursor('tokens.new', [1, 2], secret, 4_321))).toBe(4_321);
    const highest = encodeCursor('tokens.new', [1, 2], secret, Number.MAX_SAFE_INTEGER);
    expect(cursorBlock(highest)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1])(
    'refuses to issue a cursor at block %s',
    (block) => {
      expect(() => encodeCursor('tokens.new', [1, 2], secret, block)).toThrow(RangeError);
    },
  );

  it('rejects a cursor of another list (foreign cursor)', () => {
    expectInvalid(() =>
      decodeCursor(encodeCursor('tokens.top', [1, 2], secret, 5), 'tokens.new', key, secret),
    );
  });

  it('rejects every single-character edit (tampering)', () => {
    const cursor = encodeCursor('tokens.new', [123, 4], secret, 777);
    for (let i = 0; i < cursor.length; i++) {
      const replacement = cursor[i] === 'A' ? 'B' : 'A';
      const edited = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
      expectInvalid(() => decodeCursor(edited, 'tokens.new', key, secret));
    }
  });

  it('rejects a raised or lowered block without the right MAC (tampered block)', () => {
    const cursor = encodeCursor('tokens.new', [123, 4], secret, 777);
    const [, , mac] = cursor.split('.');
    for (const block of [0, 776, 778, 10 ** 12]) {
      const payload = Buffer.from(JSON.stringify(['tokens.new', [123, 4], block])).toString('base64url');
      const edited = `v2.${payload}.${mac}`;
      expectInvalid(() => decodeCursor(edited, 'tokens.new', key, secret));
      // Routing reads the block unverified: the forged page is still refused by its list.
      expect(cursorBlock(edited)).toBe(block);
    }
  });

  it.each([
    ['a string', '777'],
    ['negative', -1],
    ['fractional', 7.5],
    ['above 2^53 - 1', 2 ** 53],
    ['null', null],
    ['an object', { block: 7 }],
  ])('rejects a correctly signed cursor whose block is %s (wrong block type)', (_label, block) => {
    const cursor = signed('v2', ['tokens.new', [1, 2], block]);
    expectInvalid(() => decodeCursor(cursor, 'tokens.new', key, secret));
    expect(cursorBlock(cursor)).toBeUndefined();
  });

  it('rejects a correctly signed v2 cursor without a block or with extra fields', () => {
    for (const payload of [
      ['tokens.new', [1, 2]],
      ['tokens.new', [1, 2], 5, 6],
    ]) {
      expectInvalid(() => decodeCursor(signed('v2', payload), 'tokens.new', key, secret));
    }
  });

  it('accepts a cursor of the old format (v1, no block) as carrying no block', () => {
    const old = signed('v1', ['tokens.new', [123, 4]]);
    expect(decodeCursor(old, 'tokens.new', key, secret)).toEqual([123, 4]);
    expect(cursorBlock(old)).toBeUndefined();
    expectInvalid(() => decodeCursor(old, 'tokens.top', key, secret));
    expectInvalid(() =>
      decodeCursor(signed('v1', ['tokens.new', [1, 2]], 'other'), 'tokens.new', key, secret),
    );
    expectInvalid(() => decodeCursor(signed('v1', ['tokens.new', [1, 2], 9]), 'tokens.new', key, secret));
  });

  it('rejects a payload relabelled to the other version (each MAC covers its version)', () => {
    const current = encodeCursor('tokens.new', [1, 2], secret, 9);
    expectInvalid(() => decodeCursor(current.replace(/^v2/, 'v1'), 'tokens.new', key, secret));
    const old = signed('v1', ['tokens.new', [1, 2]]);
    expectInvalid(() => decodeCursor(old.replace(/^v1/, 'v2'), 'tokens.new', key, secret));
  });

  it('rejects a re-encoded payload without the right MAC', () => {
    const forged = `v2.${Buffer.from(JSON.stringify(['tokens.new', [0, 0], 0])).toString('base64url')}.AAAAAAAAAAAAAAAA`;
    expectInvalid(() => decodeCursor(forged, 'tokens.new', key, secret));
  });

  it('rejects a cursor signed with another secret (another deployment)', () => {
    const foreign = encodeCursor('tokens.new', [1, 2], 'other', 3);
    expectInvalid(() => decodeCursor(foreign, 'tokens.new', key, secret));
  });

  it('rejects a key of the wrong shape even when correctly signed', () => {
    expectInvalid(() =>
      decodeCursor(encodeCursor('tokens.new', ['x', 2], secret, 1), 'tokens.new', key, secret),
    );
  });

  it.each([
    '',
    'v1',
    'v2',
    'v3.abc.def',
    'v2.abc.def',
    'v1..',
    'v2..',
    'v1.a.b.c',
    'not a cursor',
    'v2.!!!.abc',
    '%%%',
  ])('rejects malformed %j', (cursor) => {
    expectInvalid(() => decodeCursor(cursor, 'tokens.new', key, secret));
    expect(cursorBlock(cursor)).toBeUndefined();
  });

  it('finds no block in what is not a cursor string (a missing or repeated parameter)', () => {
    for (const value of [undefined, null, 12, ['v2.a.b'], {}]) expect(cursorBlock(value)).toBeUndefined();
  });
});

describe('keysetPage', () => {
  const cursorAfter = (last: number, block: number) => `after:${last}@${block}`;

  it('cuts limit + 1 fetched rows to limit and points the cursor after the last kept row, at the block', () => {
    expect(keysetPage([1, 2, 3, 4], 3, cursorAfter, 50)).toEqual({
      rows: [1, 2, 3],
      nextCursor: 'after:3@50',
    });
  });

  it('has no cursor on the last page, full or short, nor on an empty one', () => {
    expect(keysetPage([1, 2, 3], 3, cursorAfter, 1)).toEqual({ rows: [1, 2, 3], nextCursor: null });
    expect(keysetPage([1], 3, cursorAfter, 1)).toEqual({ rows: [1], nextCursor: null });
    expect(keysetPage([], 3, cursorAfter, 1)).toEqual({ rows: [], nextCursor: null });
  });
});
