import ipaddr from 'ipaddr.js';

/**
 * The address a request came from. With no trusted proxy it is the socket's peer: a client can
 * write anything into X-Forwarded-For, so the header is ignored. Behind `trustedProxyHops`
 * proxies, each appending the address it saw, the client is the entry that many places from the
 * right; entries further left were written by the client and are never trusted.
 * @example clientAddress('10.0.0.2', '6.6.6.6, 203.0.113.9', 1) // '203.0.113.9'
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxyHops: number,
): string {
  if (trustedProxyHops <= 0) return canonicalAddress(socketAddress);
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Fewer entries than hops: the request skipped a proxy; the first proxy's peer is all we know.
  const entry = entries.length >= trustedProxyHops ? entries[entries.length - trustedProxyHops] : entries[0];
  return canonicalAddress(entry ?? socketAddress);
}

/**
 * The limiter key of an address: IPv4 as is (IPv4-mapped IPv6 unwrapped), IPv6 by its /64, the
 * smallest block a single subscriber is routinely given (one host can rotate through all of it).
 * Anything unparsable keys as itself, bounded in length.
 */
export function canonicalAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return `raw:${bare.slice(0, 64)}`;
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
