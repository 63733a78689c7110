import { describe, expect, it } from 'vitest';
import { balanceKind } from '../../db/schema';
import type { DecodedEvent } from '../decode/events';
import { createBalanceBook } from './balance-book';
import { ZERO_ADDRESS } from './state';

const tokenA = '0x00000000000000000000000000000000000000aa';
const tokenB = '0x00000000000000000000000000000000000000bb';
const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const holder = (balance: bigint) => ({ balance, kind: balanceKind.holder, since: 1 });
const launchOf = (token: string) => ({ event: { token } });
const change = (token: string, n: number, after: bigint) => ({
  token,
  wallet: wallet(n),
  after,
  kind: 0,
  since: 1,
});

function transfer(token: string, from: string, to: string): DecodedEvent {
  return {
    type: 'transfer',
    token,
    from,
    to,
    value: 1n,
    blockNumber: 1,
    blockHash: `0x${'1'.repeat(64)}`,
    transactionHash: `0x${'2'.repeat(64)}`,
    transactionIndex: 0,
    logIndex: 0,
  };
}

describe('createBalanceBook', () => {
  it('answers none for any wallet of a token it saw launched, and never asks the database about it', () => {
    const book = createBalanceBook(100);
    book.remember({ launches: [launchOf(tokenA)], balances: [change(tokenA, 1, 5n)] }, 1);
    expect(book.view.get(tokenA, wallet(1))).toEqual(holder(5n));
    expect(book.view.get(tokenA, wallet(2))).toBeNull();
    expect(book.unknown([transfer(tokenA, wallet(7), wallet(8))], new Set())).toEqual([]);
  });

  it('lists the wallets of other tokens it has not read, and remembers reads without a row as none', () => {
    const book = createBalanceBook(100);
    // Each wallet once, the zero address of a mint never; tokenA is launched by the same events:
    // it has no stored rows to read.
    const keys = [
      transfer(tokenB, ZERO_ADDRESS, wallet(1)),
      transfer(tokenB, wallet(1), wallet(2)),
      transfer(tokenA, wallet(3), wallet(4)),
      transfer(tokenB, wallet(2), wallet(1)),
    ];
    const unknown = book.unknown(keys, new Set([tokenA]));
    expect(unknown).toEqual([
      { token: tokenB, wallet: wallet(1) },
      { token: tokenB, wallet: wallet(2) },
    ]);
    expect(() => book.view.get(tokenB, wallet(1))).toThrow(/was not loaded/);
    book.load(unknown, [{ token: tokenB, wallet: wallet(1), ...holder(9n) }]);
    expect(book.view.get(tokenB, wallet(1))).toEqual(holder(9n));
    expect(book.view.get(tokenB, wallet(2))).toBeNull();
    expect(book.unknown(keys, new Set([tokenA]))).toEqual([]);
    // Still not complete: a wallet never read is unknown.
    expect(() => book.view.get(tokenB, wallet(5))).toThrow(/was not loaded/);
  });

  it('forgets an emptied row of a complete token and keeps it as none for a partly read one', () => {
    const book = createBalanceBook(100);
    book.remember({ launches: [launchOf(tokenA)], balances: [change(tokenA, 1, 5n)] }, 1);
    book.load([{ token: tokenB, wallet: wallet(1) }], [{ token: tokenB, wallet: wallet(1), ...holder(3n) }]);
    expect(book.size).toBe(2);
    book.remember({ launches: [], balances: [change(tokenA, 1, 0n), change(tokenB, 1, 0n)] }, 2);
    expect(book.view.get(tokenA, wallet(1))).toBeNull();
    expect(book.view.get(tokenB, wallet(1))).toBeNull();
    expect(book.size).toBe(1);
  });

  it('refuses a change to a token it was never given', () => {
    const book = createBalanceBook(100);
    expect(() => book.remember({ launches: [], balances: [change(tokenA, 1, 1n)] }, 1)).toThrow(
      /without being loaded/,
    );
  });

  it('evicts whole tokens, least recently changed first, and none a pending plan changed', () => {
    const book = createBalanceBook(3);
    const tokens = [tokenA, tokenB, wallet(0xc0)];
    tokens.forEach((token, i) => {
      book.remember(
        { launches: [launchOf(token)], balances: [change(token, 1, 1n), change(token, 2, 1n)] },
        i + 1,
      );
    });
    // tokenA changes again in plan 4: it is now the most recent.
    book.remember({ launches: [], balances: [change(tokenA, 3, 1n)] }, 4);
    expect(book.size).toBe(7);
    // Plans up to 1 are committed: tokenA's last plan (4) is not, tokenB's (2) is not either.
    book.evict(1);
    expect(book.size).toBe(7);
    book.evict(2);
    expect(book.tokens).toBe(2);
    expect(book.size).toBe(5);
    expect(() => book.view.get(tokenB, wallet(9))).toThrow(/was not loaded/);
    book.evict(4);
    expect(book.size).toBeLessThanOrEqual(3);
    expect(book.view.get(tokenA, wallet(3))).toEqual(holder(1n));
    book.clear();
    expect(book.size).toBe(0);
    expect(() => book.view.get(tokenA, wallet(3))).toThrow(/was not loaded/);
  });
});
