import { createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { AppError } from '../errors';

/**
 * Keyset cursors: `v2.<payload>.<mac>`, both base64url. The payload names the list it belongs to,
 * the sort key of the last row and the block the issuing answer was indexed through; the MAC makes
 * edited or foreign cursors detectable, so a client can only ever resume a walk the server started.
 * The block is the walk's high-water mark: the next page is a read with that `min_block`, so a
 * client following `next_cursor` to a lagging replica is never answered older (docs/api.md,
 * "Read replicas and monotonic reads").
 * @dev `v1` cursors (`[list, key]`, no block) are still accepted, as carrying no block: they were
 * issued before the upgrade by this deployment and verify with its key (docs/api.md says why).
 */
const VERSION = 'v2';
const BLOCKLESS_VERSION = 'v1';
const MAC_BYTES = 12;
/** Far past any chain's height, and exact as a JavaScript number. */
const MAX_BLOCK = Number.MAX_SAFE_INTEGER;

export type CursorValue = string | number | boolean | null;

/**
 * Encodes the position after `key` in the list named `list`, issued by an answer indexed through
 * `block`.
 * @example encodeCursor('tokens.new', [1234, 7], secret, 1300) // 'v2.WyJ0b2...'
 */
export function encodeCursor(
  list: string,
  key: readonly CursorValue[],
  secret: string,
  block: number,
): string {
  if (!isBlock(block)) throw new RangeError(`a cursor's block must be a block number, not ${block}`);
  return sign(VERSION, Buffer.from(JSON.stringify([list, key, block])).toString('base64url'), secret);
}

/** What a verified cursor holds, whichever list it is of. */
interface OpenedCursor {
  list: unknown;
  key: unknown;
  /** Undefined for a `v1` cursor. */
  block: number | undefined;
}

/**
 * A cursor's contents when it is one this deployment signed, in a known version and shape;
 * undefined for anything else.
 */
function openCursor(cursor: string, secret: string): OpenedCursor | undefined {
  const parts = cursor.split('.');
  if (parts.length !== 3) return undefined;
  const [version, payload, givenMac] = parts as [string, string, string];
  if (version !== VERSION && version !== BLOCKLESS_VERSION) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(givenMac)) return undefined;
  const expected = Buffer.from(mac(version, payload, secret), 'base64url');
  const given = Buffer.from(givenMac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded)) return undefined;
  if (version === BLOCKLESS_VERSION)
    return decoded.length === 2 ? { list: decoded[0], key: decoded[1], block: undefined } : undefined;
  if (decoded.length !== 3 || !isBlock(decoded[2])) return undefined;
  return { list: decoded[0], key: decoded[1], block: decoded[2] };
}

/**
 * Decodes a cursor of `list`, validating the key with `schema`.
 * @throws AppError `invalid_cursor` for anything not produced by {@link encodeCursor} for this list.
 */
export function decodeCursor<T>(cursor: string, list: string, schema: z.ZodType<T>, secret: string): T {
  const opened = openCursor(cursor, secret);
  if (opened === undefined || opened.list !== list) throw invalidCursor();
  const parsed = schema.safeParse(opened.key);
  if (!parsed.success) throw invalidCursor();
  return parsed.data;
}

/**
 * The key of the page after `cursor` in `list`, or undefined for the first page (no cursor).
 * A cursor that does not decode for this list fails as {@link decodeCursor} does.
 */
export function decodeCursorIfAny<T>(
  cursor: string | undefined,
  list: string,
  schema: z.ZodType<T>,
  secret: string,
): T | undefined {
  return cursor === undefined ? undefined : decodeCursor(cursor, list, schema, secret);
}

/**
 * The block a cursor says it was issued at, for routing its read before its list decodes it:
 * undefined when it carries none (`v1`) or is not a cursor of a known shape.
 * @dev the MAC is not checked here (it is by {@link decodeCursor}, before any row is read): a
 * forged block can only send a request that its list then refuses to a database at or past that
 * block, and a genuine cursor is not verified twice on every page.
 * @example cursorBlock(page1.next_cursor) // 1300
 */
export function cursorBlock(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string' || !cursor.startsWith(`${VERSION}.`)) return undefined;
  const end = cursor.indexOf('.', VERSION.length + 1);
  if (end < 0) return undefined;
  try {
    const decoded: unknown = JSON.parse(
      Buffer.from(cursor.slice(VERSION.length + 1, end), 'base64url').toString('utf8'),
    );
    return Array.isArray(decoded) && decoded.length === 3 && isBlock(decoded[2]) ? decoded[2] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A keyset page from `limit + 1` fetched rows: the first `limit`, and the cursor after the last of
 * them when the extra row shows that another page exists. `block` is the block the page's data is
 * indexed through, read in the rows' own statement (the same snapshot).
 * @example keysetPage(rows, 20, (last, block) => encodeCursor('tokens.new', [last.block, last.index], secret, block), 1300)
 */
export function keysetPage<Row>(
  rows: readonly Row[],
  limit: number,
  cursorAfter: (last: Row, block: number) => string,
  block: number,
): { rows: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  if (rows.length <= limit || last === undefined) return { rows: page, nextCursor: null };
  return { rows: page, nextCursor: cursorAfter(last, block) };
}

function invalidCursor(): AppError {
  return new AppError('invalid_cursor', 'cursor is not valid for this list; use next_cursor unchanged');
}

function isBlock(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_BLOCK;
}

function sign(version: string, payload: string, secret: string): string {
  return `${version}.${payload}.${mac(version, payload, secret)}`;
}

/**
 * The MAC of a `v1` cursor covers its payload only (as it always did); a `v2` MAC also covers the
 * version, so a v2 payload relabelled `v1` (or the reverse) does not verify.
 */
function mac(version: string, payload: string, secret: string): string {
  const signed = version === BLOCKLESS_VERSION ? payload : `${version}.${payload}`;
  return createHmac('sha256', secret).update(signed).digest().subarray(0, MAC_BYTES).toString('base64url');
}
