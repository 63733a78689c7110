import { describe, expect, it } from 'vitest';
import { traders } from '../../db/schema';
import { columnNames } from '../../db/table-columns';
import type { DecodedEvent, DecodedEventOf } from '../decode/events';
import type { BlockHeader, RangeData } from '../sync/range-algebra';
import { createBalanceBook } from './balance-book';
import { foldRange, type ProjectionContext } from './fold';
import type { TokenState } from './state';
import { createTraderBook, foldTraders, rememberTraders } from './trader-book';
import { defaultLabelParams, emptyTrader } from './traders';
import { traderLine } from './write-traders';

const context: ProjectionContext = {
  chainId: 31337,
  factory: '0x00000000000000000000000000000000000000fa',
  graduator: '0x00000000000000000000000000000000000000f9',
  stable: '0x00000000000000000000000000000000000000f8',
  startBlock: 1,
  finalityDepth: 64,
};
const token = '0x00000000000000000000000000000000000000aa';
const curve = '0x00000000000000000000000000000000000000cc';
const creator = '0x00000000000000000000000000000000000000bb';
const alice = '0x00000000000000000000000000000000000000a1';
const zero = '0x0000000000000000000000000000000000000000';
const ether = 10n ** 18n;

let logIndex = 0;
const at = (blockNumber: number) => ({
  blockNumber,
  blockHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
  transactionHash: `0x${'0'.repeat(63)}${blockNumber % 10}`,
  transactionIndex: 0,
  logIndex: logIndex++,
});
const header = (number: number): BlockHeader => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  parentHash: `0x${(number - 1).toString(16).padStart(64, '0')}`,
  timestamp: 1_700_000_000 + number * 12,
});
const launch = (blockNumber: number): DecodedEventOf<'launch'> => ({
  ...at(blockNumber),
  type: 'launch',
  token,
  creator,
  curve,
  name: 'T',
  symbol: 'T',
  totalSupply: 1_000_000_000n * ether,
  metadataHash: `0x${'11'.repeat(32)}`,
  virtualTokenReserve: 1_073_000_000n * ether,
  virtualReserve: 30n * ether,
  realTokenReserve: 793_100_000n * ether,
  graduationThreshold: 85n * ether,
  protocolFeeBps: 100,
  creatorFeeBps: 50,
});
const trade = (blockNumber: number, isBuy: boolean, reserve: bigint): DecodedEvent => ({
  ...at(blockNumber),
  type: 'trade',
  token,
  trader: alice,
  isBuy,
  tokenAmount: ether,
  reserveAmount: reserve,
  curveValue: reserve,
  protocolFee: 0n,
  creatorFee: 0n,
  virtualTokenReserve: 1_072_000_000n * ether,
  virtualReserve: 30n * ether + reserve,
  realTokenReserve: 793_000_000n * ether,
  realReserve: reserve,
});
const transfer = (blockNumber: number, from: string, to: string): DecodedEvent => ({
  ...at(blockNumber),
  type: 'transfer',
  token,
  from,
  to,
  value: ether,
});
const rangeOf = (from: number, to: number, events: DecodedEvent[]): RangeData => {
  const headers = new Map<number, BlockHeader>();
  for (const n of [from, to, ...events.map((e) => e.blockNumber)]) headers.set(n, header(n));
  return { from, to, events, headers, logCount: events.length, pools: new Map() };
};

describe('trader book', () => {
  it('folds a later range onto the rows an earlier plan left, without changing them (they are its before-images)', () => {
    const book = createTraderBook(Number.POSITIVE_INFINITY);
    const balances = createBalanceBook(Number.POSITIVE_INFINITY);
    const first = foldRange(
      rangeOf(10, 10, [
        transfer(10, zero, curve),
        launch(10),
        trade(10, true, ether),
        transfer(10, curve, alice),
      ]),
      context,
      new Map(),
      balances.view,
    );
    // Launched in the plan: the book holds every row of the token, none is read.
    foldTraders(first, book.view, defaultLabelParams);
    expect(first.traders).toHaveLength(1);
    expect(first.traders[0]?.before).toBeNull();
    expect(first.traders[0]?.after).toMatchObject({
      wallet: alice,
      bought: ether,
      quoteSpent: ether,
      buys: 1,
    });
    rememberTraders(book, first, 1);
    balances.remember(first, 1);

    const states = new Map<string, TokenState>(first.states);
    const second = foldRange(
      rangeOf(11, 11, [trade(11, false, 3n * ether), transfer(11, alice, curve)]),
      context,
      states,
      balances.view,
    );
    expect(book.knows(token, alice)).toBe(true);
    foldTraders(second, book.view, defaultLabelParams);
    const [change] = second.traders;
    expect(change?.before).toBe(first.traders[0]?.after);
    expect(change?.before).toMatchObject({ balance: ether, costBasis: ether, sells: 0 });
    // Sold the whole position bought for 1 at 3: 2 realized.
    expect(change?.after).toMatchObject({ balance: 0n, costBasis: 0n, realizedPnl: 2n * ether, sells: 1 });
  });

  it('asks for the rows of tokens it did not see launched until they are read, and records reads without a row as none', () => {
    const book = createTraderBook(Number.POSITIVE_INFINITY);
    expect(book.knows(token, alice)).toBe(false);
    expect(() => book.view.get(token, alice)).toThrow(/was not loaded/);
    book.load([{ token, wallet: alice }], []);
    expect(book.knows(token, alice)).toBe(true);
    expect(book.view.get(token, alice)).toBeNull();
    expect(() => book.view.get(token, creator)).toThrow(/was not loaded/);
  });

  it('evicts whole tokens whose plans are committed, never one a pending plan changed', () => {
    const book = createTraderBook(1);
    book.launched([token], 1);
    book.remember(token, alice, emptyTrader(token, alice, creator), 1);
    book.remember(token, creator, emptyTrader(token, creator, creator), 1);
    book.evict(0);
    expect(book.size).toBe(2);
    book.evict(1);
    expect(book.size).toBe(0);
    expect(book.knows(token, alice)).toBe(false);
  });
});

describe('traderLine', () => {
  it('writes every column of `traders` in the schema order, nulls as \\N and booleans as t/f', () => {
    const row = { ...emptyTrader(token, alice, creator), quoteSpent: 5n, quoteReceived: 2n, sniper: true };
    const fields = traderLine(row).split('\t');
    const names = columnNames(traders);
    expect(fields).toHaveLength(names.length);
    const value = (name: string) => fields[names.indexOf(name)];
    expect(value('token_address')).toBe(token);
    expect(value('wallet')).toBe(alice);
    expect(value('volume')).toBe('7');
    expect(value('first_trade_block')).toBe('\\N');
    expect(value('sniper')).toBe('t');
    expect(value('is_creator')).toBe('f');
  });
});
