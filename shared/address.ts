/**
 * Addresses as text, one definition for every layer: clients may send any hex case; the index
 * stores and the API answers lowercase.
 */

/** A 0x-prefixed 20-byte hex address in any case (also the OpenAPI `pattern`). */
export const ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$';

/** The lowercase form the index stores and every answer carries. */
export const LOWERCASE_ADDRESS_PATTERN = '^0x[0-9a-f]{40}$';

const anyCase = new RegExp(ADDRESS_PATTERN);
const lowercase = new RegExp(LOWERCASE_ADDRESS_PATTERN);

/** @example isAddress('0xAbC…') // true for 40 hex digits in any case */
export function isAddress(value: string): boolean {
  return anyCase.test(value);
}

/** @example isLowercaseAddress('0xabc…') // true only for the stored form */
export function isLowercaseAddress(value: string): boolean {
  return lowercase.test(value);
}
