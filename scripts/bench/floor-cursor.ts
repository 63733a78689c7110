import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The floor's copy of Launchdex's cursor format (`v1.<payload>.<mac>`, server/api/cursor.ts):
 * with the same secret, both servers write the same `next_cursor` and accept each other's, so
 * their answers can be compared byte for byte. A copy on purpose: the floor must not import the
 * read path it is measured against.
 */
const MAC_BYTES = 12;

export type CursorKey = (string | number)[];

function mac(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES).toString('base64url');
}

/** The cursor after `key` in the list named `list`. */
export function encodeFloorCursor(list: string, key: CursorKey, secret: string): string {
  const payload = Buffer.from(JSON.stringify([list, key])).toString('base64url');
  return `v1.${payload}.${mac(payload, secret)}`;
}

/** The key of a cursor of `list`, or null when it is malformed, forged or another list's. */
export function decodeFloorCursor(cursor: string, list: string, secret: string): CursorKey | null {
  const parts = cursor.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1') return null;
  const [, payload, givenMac] = parts as [string, string, string];
  const expected = Buffer.from(mac(payload, secret), 'base64url');
  const given = Buffer.from(givenMac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return Array.isArray(decoded) && decoded[0] === list && Array.isArray(decoded[1])
      ? (decoded[1] as CursorKey)
      : null;
  } catch {
    return null;
  }
}

/** A search's list name: a digest of the normalized text (server/api/cursor-keys.ts). */
export function searchListName(list: string, normalizedSearch: string): string {
  return `${list}:${createHash('sha256').update(normalizedSearch).digest('base64url').slice(0, 22)}`;
}
