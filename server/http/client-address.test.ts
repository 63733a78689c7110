import { describe, expect, it } from 'vitest';
import { canonicalAddress, clientAddress } from './client-address';

describe('client identity', () => {
  it('is the socket address when no proxy is trusted: X-Forwarded-For cannot choose a bucket', () => {
    expect(clientAddress('203.0.113.9', '6.6.6.6', 0)).toBe('203.0.113.9');
    expect(clientAddress('203.0.113.9', undefined, 0)).toBe('203.0.113.9');
    expect(clientAddress(undefined, '6.6.6.6', 0)).toBe('unknown');
  });

  it('behind N trusted proxies is the Nth X-Forwarded-For entry from the right', () => {
    expect(clientAddress('10.0.0.2', '6.6.6.6, 203.0.113.9', 1)).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', '6.6.6.6, 203.0.113.9, 10.0.0.2', 2)).toBe('203.0.113.9');
    // Several header lines are one list.
    expect(clientAddress('10.0.0.2', ['6.6.6.6', '203.0.113.9'], 1)).toBe('203.0.113.9');
    // Fewer entries than proxies: the leftmost is the best there is.
    expect(clientAddress('10.0.0.2', '203.0.113.9', 3)).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', '', 1)).toBe('10.0.0.2');
  });

  it('keys IPv6 by its /64 and unwraps IPv4-mapped addresses', () => {
    expect(canonicalAddress('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(canonicalAddress('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(canonicalAddress('[2001:db8::5]')).toBe('2001:db8:0:0::/64');
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalAddress('not an address')).toBe('raw:not an address');
    expect(canonicalAddress('x'.repeat(500))).toHaveLength(68);
  });
});
