import { describe, expect, it } from 'vitest';
import { curvePrice } from '../../../shared/chain/curve-math';
import {
  alice,
  at,
  bob,
  context,
  creator,
  curve,
  ether,
  header,
  launchAt,
  rangeOf,
  token,
  tradeAt,
  transferAt,
  zero,
} from '../../../test/indexer/events';
import { balanceKind } from '../../db/schema';
import type { DecodedEvent } from '../decode/events';
import { createBalanceBook } from './balance-book';
import { eventDataJson } from './copy-text';
import { foldRange, touchedTokens } from './fold';
import { type TokenState, tokenFromLaunch } from './state';

/** The COPY lines of a plan's blocks of lines. */
const linesOf = (blocks: readonly string[]) => blocks.flatMap((block) => block.split('\n'));
/** A book that knows no stored balance: asking it about one fails the test. */
const noStoredBalances = () => createBalanceBook(Number.POSITIVE_INFINITY).view;
/** Names with a tab, quotes and a backslash, which a COPY line must escape. */
const launch = (blockNumber: number) => launchAt(blockNumber, { name: 'Tab\tand "quote"', symbol: 'T\\T' });
const transfer = transferAt;
const buy = (blockNumber: number, trader: string, reserve: bigint, virtualTokenReserve: bigint) =>
  tradeAt(blockNumber, { trader, isBuy: true, reserve, virtualTokenReserve });

describe('foldRange', () => {
  it('folds a launch, trades and transfers into rows, net balances and candles', () => {
    const supply = 1_000_000_000n * ether;
    const range = rangeOf(10, 20, [
      transfer(10, zero, curve, supply),
      launch(10),
      buy(12, alice, ether, 1_072_000_000n * ether),
      transfer(12, curve, alice, 5n * ether),
      transfer(15, alice, bob, 2n * ether),
      buy(15, bob, 2n * ether, 1_071_000_000n * ether),
      transfer(15, curve, bob, 3n * ether),
    ]);
    const plan = foldRange(range, context, new Map(), noStoredBalances());

    expect(plan.launches.map((l) => l.event.token)).toEqual([token]);
    expect(plan.updated).toEqual([]);
    expect(plan.head).toEqual(header(20));
    expect(linesOf(plan.tradeLines)).toHaveLength(2);
    expect(linesOf(plan.eventLines)).toHaveLength(7);
    const state = plan.states.get(token) as TokenState;
    expect(state.tradeCount).toBe(2);
    expect(state.totalVolume).toBe(3n * ether);
    expect(state.currentPrice).toBe(curvePrice(1_071_000_000n * ether, 32n * ether));

    const balances = Object.fromEntries(plan.balances.map((b) => [b.wallet, [b.before, b.after, b.kind]]));
    expect(balances).toEqual({
      [curve]: [null, supply - 8n * ether, balanceKind.curve],
      [alice]: [null, 3n * ether, balanceKind.holder],
      [bob]: [null, 5n * ether, balanceKind.holder],
    });
    // The curve's row is not a holder's.
    expect(state.holders).toBe(2);
    // Both trades fall in one 1-week bucket; 12 s blocks put them in different minutes.
    const weekly = plan.candles.filter((c) => c.intervalSeconds === 604_800);
    expect(weekly).toHaveLength(1);
    expect(weekly[0]).toMatchObject({ trades: 2, volume: 3n * ether, lastBlockNumber: 15 });
    expect(plan.candles.filter((c) => c.intervalSeconds === 60)).toHaveLength(2);
    expect(plan.creators.get(creator)).toMatchObject({ launched: 1, volume: 3n * ether });
    expect(plan.tradedTokens).toEqual([token]);
  });

  it('does not modify the states it is given, and names an existing token as updated', () => {
    const before = tokenFromLaunch(launch(1));
    const states = new Map([[token, before]]);
    const snapshot = { ...before };
    const range = rangeOf(30, 31, [buy(31, alice, ether, 1_072_000_000n * ether)]);
    expect(touchedTokens(range)).toEqual([token]);
    const plan = foldRange(range, context, states, noStoredBalances());
    expect(before).toEqual(snapshot);
    expect(plan.updated).toEqual([token]);
    expect(plan.states.get(token)?.tradeCount).toBe(1);
  });

  it('moves stored balances: rows emptied, created and changed, and the holders they make', () => {
    const carol = '0x00000000000000000000000000000000000000c1';
    const pool = '0x00000000000000000000000000000000000000d1';
    const book = createBalanceBook(Number.POSITIVE_INFINITY);
    const wallets = [alice, bob, carol, pool, curve];
    book.load(
      wallets.map((wallet) => ({ token, wallet })),
      [
        { token, wallet: alice, balance: 10n, kind: balanceKind.holder, since: 5 },
        { token, wallet: carol, balance: 4n, kind: balanceKind.holder, since: 5 },
        // Tokens sent to the pool's address before it was a pool: a holder's row until now.
        { token, wallet: pool, balance: 1n, kind: balanceKind.holder, since: 5 },
        { token, wallet: curve, balance: 100n, kind: balanceKind.curve, since: 5 },
      ],
    );
    const state = { ...tokenFromLaunch(launch(1)), poolAddress: pool, holders: 3 };
    const plan = foldRange(
      rangeOf(40, 41, [
        transfer(40, alice, bob, 10n),
        transfer(41, carol, curve, 1n),
        transfer(41, curve, pool, 0n),
      ]),
      context,
      new Map([[token, state]]),
      book.view,
    );
    const byWallet = Object.fromEntries(
      plan.balances.map((b) => [b.wallet, [b.before?.balance ?? null, b.after, b.kind]]),
    );
    expect(byWallet).toEqual({
      [alice]: [10n, 0n, balanceKind.holder],
      [bob]: [null, 10n, balanceKind.holder],
      [carol]: [4n, 3n, balanceKind.holder],
      [curve]: [100n, 101n, balanceKind.curve],
      [pool]: [1n, 1n, balanceKind.pool],
    });
    // Alice left and the pool's row stopped counting; Bob arrived.
    expect(plan.states.get(token)?.holders).toBe(2);
    expect(state.holders).toBe(3);
    book.remember(plan, 1);
    expect(book.view.get(token, alice)).toBeNull();
    expect(book.view.get(token, bob)).toEqual({ balance: 10n, kind: balanceKind.holder, since: 40 });
    expect(book.view.get(token, pool)).toEqual({ balance: 1n, kind: balanceKind.pool, since: 41 });
  });

  it('asks the book about every wallet a transfer of a token it did not launch moves', () => {
    const state = tokenFromLaunch(launch(1));
    expect(() =>
      foldRange(
        rangeOf(40, 40, [transfer(40, alice, bob, 1n)]),
        context,
        new Map([[token, state]]),
        noStoredBalances(),
      ),
    ).toThrow(/was not loaded/);
  });

  it('joins COPY lines in blocks of 512, in chain order', () => {
    const transfers = Array.from({ length: 1_100 }, (_, i) => ({
      ...transfer(11, curve, alice, BigInt(i + 1)),
      logIndex: i,
    }));
    const plan = foldRange(
      rangeOf(10, 11, [launch(10), ...transfers]),
      context,
      new Map(),
      noStoredBalances(),
    );
    expect(plan.eventLines.map((block) => block.split('\n').length)).toEqual([512, 512, 77]);
    const lines = linesOf(plan.eventLines);
    expect(lines.every((line) => line.split('\t').length === 9)).toBe(true);
    expect(lines.slice(1).map((line) => JSON.parse(line.split('\t')[8] as string).value)).toEqual(
      transfers.map((_, i) => String(i + 1)),
    );
  });

  it("makes a trade the wallet's whose tokens moved: a pool sell is its payer's, a buy its receiver's", () => {
    const pool = '0x00000000000000000000000000000000000000d1';
    const [payer, recipient] = [alice, bob];
    const state = { ...tokenFromLaunch(launch(1)), poolAddress: pool };
    const book = createBalanceBook(Number.POSITIVE_INFINITY);
    book.load(
      [payer, recipient, pool].map((wallet) => ({ token, wallet })),
      [{ token, wallet: pool, balance: 100n * ether, kind: balanceKind.pool, since: 5 }],
    );
    // The token is token0 (below the stablecoin's address): amount0 is the pool's token delta.
    const swap = (blockNumber: number, amount0: bigint): DecodedEvent => ({
      ...at(blockNumber),
      type: 'swap',
      pool,
      sender: context.graduator,
      recipient,
      amount0,
      amount1: -amount0,
      sqrtPriceX96: 2n ** 96n,
      liquidity: 1n,
      tick: 0,
    });
    const events = [
      // A buy for the payer, then a sell it pays whose proceeds go to the recipient; then tokens
      // sent to the pool with no swap (a donation) stay a plain send.
      transfer(50, pool, payer, 5n * ether),
      swap(50, -5n * ether),
      transfer(51, payer, pool, 2n * ether),
      swap(51, 2n * ether),
      transfer(52, payer, pool, 1n),
    ];
    const range = { ...rangeOf(50, 52, events), pools: new Map([[pool, token]]) };
    const plan = foldRange(
      range,
      { ...context, stable: `0x${'ff'.repeat(20)}` },
      new Map([[token, state]]),
      book.view,
    );
    expect(plan.traderOps.map((op) => [op.kind, op.wallet, op.tokens])).toEqual([
      ['buy', payer, 5n * ether],
      ['sell', payer, 2n * ether],
      ['out', payer, 1n],
    ]);
    // The trade rows keep the swap's recipient as their trader (/trades).
    expect(
      linesOf(plan.tradeLines)
        .map((line) => line.split('\t'))
        .every((f) => f.includes(recipient)),
    ).toBe(true);
  });

  it('drops events of tokens it does not know', () => {
    const plan = foldRange(
      rangeOf(5, 6, [transfer(6, alice, bob, 1n)]),
      context,
      new Map(),
      noStoredBalances(),
    );
    expect(plan.eventLines).toEqual([]);
    expect(plan.balances).toEqual([]);
  });

  it('writes COPY-safe event data: tabs, quotes and backslashes in names are escaped', () => {
    const plan = foldRange(rangeOf(10, 10, [launch(10)]), context, new Map(), noStoredBalances());
    const line = linesOf(plan.eventLines)[0] as string;
    expect(line.split('\t')).toHaveLength(9);
    const data = (line.split('\t')[8] as string).replace(/\\\\/g, '\\');
    expect(JSON.parse(data)).toMatchObject({
      name: 'Tab\tand "quote"',
      symbol: 'T\\T',
      protocolFeeBps: '100',
    });
    expect(JSON.parse(eventDataJson(transfer(1, alice, bob, 7n)))).toEqual({
      token,
      from: alice,
      to: bob,
      value: '7',
    });
  });
});

describe('eventDataJson', () => {
  /** Not data: the event's type and the provenance every fixture event carries (`at`). */
  const notData = new Set(['type', ...Object.keys(at(0))]);
  /** The data as first written: every field but provenance, stringified, through JSON.stringify. */
  const reference = (event: DecodedEvent) =>
    JSON.stringify(
      Object.fromEntries(
        Object.entries(event)
          .filter(([key]) => !notData.has(key))
          .map(([key, value]) => [key, typeof value === 'string' ? value : String(value)]),
      ),
    );

  it('writes every kind exactly as JSON.stringify of its fields would, names with escapes included', () => {
    const events: DecodedEvent[] = [
      { ...launch(1), name: 'Quote " backslash \\ control \u0001 emoji 🚀 é', symbol: '</script>' },
      {
        ...at(2),
        type: 'trade',
        token,
        trader: alice,
        isBuy: false,
        tokenAmount: 5n * ether,
        reserveAmount: 1n,
        curveValue: 2n,
        protocolFee: 0n,
        creatorFee: 3n,
        virtualTokenReserve: 4n,
        virtualReserve: 5n,
        realTokenReserve: 6n,
        realReserve: 7n,
      },
      {
        ...at(3),
        type: 'graduation',
        token,
        pool: bob,
        tokenAmount: 1n,
        reserveAmount: 2n,
        stableAmount: 3n,
        burnedTokenAmount: 0n,
        liquidity: 10n ** 30n,
        sqrtPriceX96: 2n ** 96n,
      },
      {
        ...at(4),
        type: 'swap',
        pool: bob,
        sender: alice,
        recipient: bob,
        amount0: -(10n ** 20n),
        amount1: 3n,
        sqrtPriceX96: 2n ** 96n,
        liquidity: 1n,
        tick: -887_272,
      },
      transfer(5, alice, bob, 2n ** 256n - 1n),
    ];
    for (const event of events) {
      // Twice: the second call writes from the keys the first one recorded for the type.
      expect(eventDataJson(event)).toBe(reference(event));
      expect(eventDataJson(event)).toBe(reference(event));
    }
  });
});
