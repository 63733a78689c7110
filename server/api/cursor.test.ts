import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../errors';
import { decodeCursor, encodeCursor, keysetPage } from './cursor';

const key = z.tuple([z.number().int(), z.number().int()]);
const secret = 'test-secret';

function expectInvalid(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('invalid_cursor');
    expect((error as AppError).status).toBe(400);
    return;
  }
  throw new Error('expected invalid_cursor');
}

describe('keyset cursor codec', () => {
  it('round-trips the key of its own list', () => {
    const cursor = encodeCursor('tokens.new', [123, 4], secret);
    expect(decodeCursor(cursor, 'tokens.new', key, secret)).toEqual([123, 4]);
  });

  it('is opaque: url-safe text with a version prefix, no raw key visible', () => {
    const cursor = encodeCursor('tokens.new', [123, 4], secret);
    expect(cursor).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('123');
  });

  it('rejects a cursor of another list (foreign cursor)', () => {
    expectInvalid(() => decodeCursor(encodeCursor('tokens.top', [1, 2], secret), 'tokens.new', key, secret));
  });

  it('rejects every single-character edit (tampering)', () => {
    const cursor = encodeCursor('tokens.new', [123, 4], secret);
    for (let i = 0; i < cursor.length; i++) {
      const replacement = cursor[i] === 'A' ? 'B' : 'A';
      const edited = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
      expectInvalid(() => decodeCursor(edited, 'tokens.new', key, secret));
    }
  });

  it('rejects a re-encoded payload without the right MAC', () => {
    const forged = `v1.${Buffer.from(JSON.stringify(['tokens.new', [0, 0]])).toString('base64url')}.AAAAAAAAAAAAAAAA`;
    expectInvalid(() => decodeCursor(forged, 'tokens.new', key, secret));
  });

  it('rejects a cursor signed with another secret (another deployment)', () => {
    expectInvalid(() => decodeCursor(encodeCursor('tokens.new', [1, 2], 'other'), 'tokens.new', key, secret));
  });

  it('rejects a key of the wrong shape even when correctly signed', () => {
    expectInvalid(() =>
      decodeCursor(encodeCursor('tokens.new', ['x', 2], secret), 'tokens.new', key, secret),
    );
  });

  it.each(['', 'v1', 'v2.abc.def', 'v1..', 'v1.a.b.c', 'not a cursor', 'v1.!!!.abc', '%%%'])(
    'rejects malformed %j',
    (cursor) => {
      expectInvalid(() => decodeCursor(cursor, 'tokens.new', key, secret));
    },
  );
});

describe('keysetPage', () => {
  const cursorAfter = (last: number) => `after:${last}`;

  it('cuts limit + 1 fetched rows to limit and points the cursor after the last kept row', () => {
    expect(keysetPage([1, 2, 3, 4], 3, cursorAfter)).toEqual({ rows: [1, 2, 3], nextCursor: 'after:3' });
  });

  it('has no cursor on the last page, full or short, nor on an empty one', () => {
    expect(keysetPage([1, 2, 3], 3, cursorAfter)).toEqual({ rows: [1, 2, 3], nextCursor: null });
    expect(keysetPage([1], 3, cursorAfter)).toEqual({ rows: [1], nextCursor: null });
    expect(keysetPage([], 3, cursorAfter)).toEqual({ rows: [], nextCursor: null });
  });
});
