import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The floor's copy of Launchdex's cursor format (`v2.<payload>.<mac>`, payload `[list, key,
 * block]`, server/api/cursor.ts): with the same secret, both servers write the same `next_cursor`
 * and accept each other's, so their answers can be compared byte for byte. A copy on purpose: the
 * floor must not import the read path it is measured against. Like the server, it still reads the
 * block-less `v1` cursors.
 */
const MAC_BYTES = 12;

export type CursorKey = (string | number)[];

/** A v2 MAC covers the version too; a v1 MAC its payload only (server/api/cursor.ts). */
function mac(version: string, payload: string, secret: string): string {
  const signed = version === 'v1' ? payload : `${version}.${payload}`;
  return createHmac('sha256', secret).update(signed).digest().subarray(0, MAC_BYTES).toString('base64url');
}

/** The cursor after `key` in the list named `list`, issued by an answer indexed through `block`. */
export function encodeFloorCursor(list: string, key: CursorKey, secret: string, block: number): string {
  const payload = Buffer.from(JSON.stringify([list, key, block])).toString('base64url');
  return `v2.${payload}.${mac('v2', payload, secret)}`;
}

/** The key of a cursor of `list`, or null when it is malformed, forged or another list's. */
export function decodeFloorCursor(cursor: string, list: string, secret: string): CursorKey | null {
  const parts = cursor.split('.');
  if (parts.length !== 3 || (parts[0] !== 'v1' && parts[0] !== 'v2')) return null;
  const [version, payload, givenMac] = parts as [string, string, string];
  const expected = Buffer.from(mac(version, payload, secret), 'base64url');
  const given = Buffer.from(givenMac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const length = version === 'v1' ? 2 : 3;
    if (!Array.isArray(decoded) || decoded.length !== length) return null;
    if (version === 'v2' && !(Number.isSafeInteger(decoded[2]) && decoded[2] >= 0)) return null;
    return decoded[0] === list && Array.isArray(decoded[1]) ? (decoded[1] as CursorKey) : null;
  } catch {
    return null;
  }
}

/** A search's list name: a digest of the normalized text (server/api/cursor-keys.ts). */
export function searchListName(list: string, normalizedSearch: string): string {
  return `${list}:${createHash('sha256').update(normalizedSearch).digest('base64url').slice(0, 22)}`;
}
