import { describe, expect, it } from 'vitest';
import {
  alice,
  context,
  creator,
  curve,
  ether,
  launchAt,
  rangeOf,
  token,
  tradeAt,
  transferAt,
  zero,
} from '../../../test/indexer/events';
import { traders } from '../../db/schema';
import { columnNames } from '../../db/table-columns';
import { createBalanceBook } from './balance-book';
import { foldRange } from './fold';
import type { TokenState } from './state';
import { createTraderBook, foldTraders, rememberTraders } from './trader-book';
import { defaultLabelParams, emptyTrader } from './traders';
import { traderLine } from './write-traders';

const launch = (blockNumber: number) => launchAt(blockNumber);
const trade = (blockNumber: number, isBuy: boolean, reserve: bigint) =>
  tradeAt(blockNumber, { trader: alice, isBuy, reserve, virtualTokenReserve: 1_072_000_000n * ether });
const transfer = (blockNumber: number, from: string, to: string) => transferAt(blockNumber, from, to, ether);

describe('trader book', () => {
  it('folds a later range onto the rows an earlier plan left, without changing them (they are its before-images)', () => {
    const book = createTraderBook(Number.POSITIVE_INFINITY);
    const balances = createBalanceBook(Number.POSITIVE_INFINITY);
    const first = foldRange(
      rangeOf(10, 10, [
        transfer(10, zero, curve),
        launch(10),
        // The curve sends the tokens, then the factory logs the trade (the contracts' order).
        transfer(10, curve, alice),
        trade(10, true, ether),
      ]),
      context,
      new Map(),
      balances.view,
    );
    // Launched in the plan: the book holds every row of the token, none is read.
    foldTraders(first, book.view, balances.view, defaultLabelParams);
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
      rangeOf(11, 11, [transfer(11, alice, curve), trade(11, false, 3n * ether)]),
      context,
      states,
      balances.view,
    );
    expect(book.knows(token, alice)).toBe(true);
    foldTraders(second, book.view, balances.view, defaultLabelParams);
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

  it('puts each field under its own column: a row whose every field differs', () => {
    const row = {
      token,
      wallet: alice,
      bought: 11n,
      sold: 12n,
      quoteSpent: 13n,
      quoteReceived: 14n,
      balance: 15n,
      costBasis: 16n,
      realizedPnl: -17n,
      buys: 18,
      sells: 19,
      firstTradeBlock: 20,
      firstTradeAt: 21,
      lastTradeBlock: 22,
      lastTradeAt: 23,
      isCreator: true,
      sniper: false,
      bundler: true,
      creatorLinked: false,
    };
    const names = columnNames(traders);
    const line = Object.fromEntries(
      traderLine(row)
        .split('\t')
        .map((field, i) => [names[i], field]),
    );
    expect(line).toEqual({
      token_address: token,
      wallet: alice,
      bought: '11',
      sold: '12',
      quote_spent: '13',
      quote_received: '14',
      volume: '27',
      balance: '15',
      cost_basis: '16',
      realized_pnl: '-17',
      buys: '18',
      sells: '19',
      first_trade_block: '20',
      first_trade_at: '21',
      last_trade_block: '22',
      last_trade_at: '23',
      is_creator: 't',
      sniper: 'f',
      bundler: 't',
      creator_linked: 'f',
    });
  });
});
