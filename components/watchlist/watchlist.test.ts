import { describe, expect, it } from 'vitest';
import { parseWatchlist, toggleWatched, WATCHLIST_MAX } from './watchlist';

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

describe('the stored watchlist', () => {
  it('reads back what it wrote: lowercase addresses, newest first', () => {
    const stored = JSON.stringify([address(2), address(1)]);
    expect(parseWatchlist(stored)).toEqual([address(2), address(1)]);
  });

  it('reads nothing from an absent, empty, corrupt or foreign value, and never throws', () => {
    for (const stored of [
      null,
      '',
      '{"not": json',
      'undefined',
      '"0x0000000000000000000000000000000000000001"',
      '{"addresses":["0x0000000000000000000000000000000000000001"]}',
      '42',
      'null',
      '[[]]',
      `[${'['.repeat(5000)}`,
    ])
      expect(parseWatchlist(stored), String(stored)).toEqual([]);
  });

  it('keeps only well-formed addresses from a mixed array, lowercased and each once', () => {
    const mixed = [
      42,
      null,
      { address: address(1) },
      'nope',
      '0x12',
      `${address(3)} `,
      `0x${'g'.repeat(40)}`,
      address(1).toUpperCase().replace('0X', '0x'),
      address(1),
      address(2),
    ];
    expect(parseWatchlist(JSON.stringify(mixed))).toEqual([address(1), address(2)]);
  });

  it(`holds at most ${WATCHLIST_MAX} addresses, the first ones stored`, () => {
    const many = Array.from({ length: WATCHLIST_MAX + 5 }, (_, i) => address(i + 1));
    expect(parseWatchlist(JSON.stringify(many))).toEqual(many.slice(0, WATCHLIST_MAX));
  });

  it('ignores text too long to be a watchlist it wrote', () => {
    const padded = JSON.stringify([address(1), 'x'.repeat(20_000)]);
    expect(parseWatchlist(padded)).toEqual([]);
  });
});

describe('starring and unstarring', () => {
  it('puts a newly starred token first and unstars one wherever it is', () => {
    const added = toggleWatched([address(1)], address(2));
    expect(added).toEqual({ outcome: 'added', addresses: [address(2), address(1)] });
    expect(toggleWatched(added.addresses, address(1))).toEqual({
      outcome: 'removed',
      addresses: [address(2)],
    });
  });

  it('treats any hex case of an address as the same token', () => {
    expect(toggleWatched([address(10)], address(10).toUpperCase().replace('0X', '0x'))).toEqual({
      outcome: 'removed',
      addresses: [],
    });
  });

  it('refuses a new token when full, still unstars one', () => {
    const full = Array.from({ length: WATCHLIST_MAX }, (_, i) => address(i + 1));
    expect(toggleWatched(full, address(999))).toEqual({ outcome: 'full', addresses: full });
    expect(toggleWatched(full, address(1)).addresses).toHaveLength(WATCHLIST_MAX - 1);
  });
});
