import { createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { AppError } from '../errors';

/**
 * Keyset cursors: `v1.<payload>.<mac>`, both base64url. The payload names the list it belongs to
 * and the sort key of the last row; the MAC makes edited or foreign cursors detectable, so a
 * client can only ever resume a walk the server started.
 */
const VERSION = 'v1';
const MAC_BYTES = 12;

export type CursorValue = string | number | boolean | null;

/**
 * Encodes the position after `key` in the list named `list`.
 * @example encodeCursor('tokens.new', [1234, 7], secret) // 'v1.WyJ0b2...'
 */
export function encodeCursor(list: string, key: readonly CursorValue[], secret: string): string {
  const payload = Buffer.from(JSON.stringify([list, key])).toString('base64url');
  return `${VERSION}.${payload}.${mac(payload, secret)}`;
}

/**
 * Decodes a cursor of `list`, validating the key with `schema`.
 * @throws AppError `invalid_cursor` for anything not produced by {@link encodeCursor} for this list.
 */
export function decodeCursor<T>(cursor: string, list: string, schema: z.ZodType<T>, secret: string): T {
  const invalid = () =>
    new AppError('invalid_cursor', 'cursor is not valid for this list; use next_cursor unchanged');
  const parts = cursor.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) throw invalid();
  const [, payload, givenMac] = parts as [string, string, string];
  if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(givenMac)) throw invalid();
  const expected = Buffer.from(mac(payload, secret), 'base64url');
  const given = Buffer.from(givenMac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || decoded[0] !== list) throw invalid();
  const parsed = schema.safeParse(decoded[1]);
  if (!parsed.success) throw invalid();
  return parsed.data;
}

/**
 * A keyset page from `limit + 1` fetched rows: the first `limit`, and the cursor after the last of
 * them when the extra row shows that another page exists.
 * @example keysetPage(rows, 20, (last) => encodeCursor('tokens.new', [last.block, last.index], secret))
 */
export function keysetPage<Row>(
  rows: readonly Row[],
  limit: number,
  cursorAfter: (last: Row) => string,
): { rows: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last !== undefined ? cursorAfter(last) : null };
}

function mac(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES).toString('base64url');
}
