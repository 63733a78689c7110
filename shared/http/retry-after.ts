/**
 * Retry-After as seconds or an HTTP date, in milliseconds (RFC 9110 section 10.2.3).
 * @example parseRetryAfter('3') // 3000
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
