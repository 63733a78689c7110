import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { balanceKind, HISTORY_SEGMENT_MIN_EVENTS } from '../../db/schema';
import type { StoredBalance } from './balance-book';
import {
  addStep,
  type BalanceSteps,
  firstStep,
  foldTokenHistory,
  type HistoryState,
} from './balance-history';

const token = '0x00000000000000000000000000000000000000aa';
const pool = '0x00000000000000000000000000000000000000d1';
const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const [alice, bob, carol] = [wallet(1), wallet(2), wallet(3)];
const holderOnly = () => balanceKind.holder;

/** Moves as (wallet, block, delta), in block order. */
function stepsOf(moves: readonly [string, number, bigint][]): Map<string, BalanceSteps> {
  const wallets = new Map<string, BalanceSteps>();
  for (const [address, block, delta] of moves) {
    const steps = wallets.get(address);
    if (steps) addStep(steps, block, delta);
    else wallets.set(address, firstStep(block, delta));
  }
  return wallets;
}

const fresh = (): HistoryState => ({
  holders: 0,
  historySegment: 0,
  historyCountdown: HISTORY_SEGMENT_MIN_EVENTS,
});

interface Interval {
  wallet: string;
  from: number;
  to: number;
  balance: bigint;
  kind: number;
  segment: number;
}
const parse = (line: string): Interval => {
  const [, address, from, to, balance, kind, segment] = line.split('\t');
  return {
    wallet: address as string,
    from: Number(from),
    to: Number(to),
    balance: BigInt(balance as string),
    kind: Number(kind),
    segment: Number(segment),
  };
};

describe('foldTokenHistory', () => {
  it('closes an interval at each block that moves the balance, nets moves within a block, opens none at zero', () => {
    const state = fresh();
    const history = foldTokenHistory(
      token,
      stepsOf([
        [alice, 10, 5n],
        [alice, 12, 3n],
        [alice, 12, -3n], // nets to nothing: no interval ends at 12
        [alice, 14, -5n], // to zero: the interval closes, no row stays
        [alice, 16, 2n],
        [bob, 11, 7n],
      ]),
      () => null,
      holderOnly,
      state,
      HISTORY_SEGMENT_MIN_EVENTS,
    );
    expect(history.lines.map(parse)).toEqual([
      { wallet: alice, from: 10, to: 14, balance: 5n, kind: 0, segment: 0 },
    ]);
    expect(history.changes.map((c) => [c.wallet, c.before, c.after, c.since])).toEqual([
      [alice, null, 2n, 16],
      [bob, null, 7n, 11],
    ]);
    // Opened: alice twice, bob once; closed: alice once.
    expect(state).toEqual({
      holders: 2,
      historySegment: 0,
      historyCountdown: HISTORY_SEGMENT_MIN_EVENTS - 4,
    });
    expect(history.splits).toEqual([]);
  });

  it('closes a stored row from its since_block, and leaves a row the range did not move unchanged', () => {
    const stored: Record<string, StoredBalance> = {
      [alice]: { balance: 9n, kind: balanceKind.holder, since: 4 },
      [bob]: { balance: 1n, kind: balanceKind.holder, since: 6 },
    };
    const state = { ...fresh(), holders: 2 };
    const history = foldTokenHistory(
      token,
      stepsOf([
        [alice, 20, -9n],
        [bob, 21, 0n],
      ]),
      (w) => stored[w] ?? null,
      holderOnly,
      state,
      HISTORY_SEGMENT_MIN_EVENTS,
    );
    expect(history.lines.map(parse)).toEqual([
      { wallet: alice, from: 4, to: 20, balance: 9n, kind: 0, segment: 0 },
    ]);
    expect(history.changes.find((c) => c.wallet === bob)).toMatchObject({ after: 1n, since: 6 });
    expect(state.holders).toBe(1);
  });

  it("turns the pool's row from a holder's into the pool's at its graduation block, even without a move there", () => {
    const graduated = 30;
    const kindAt = (w: string, block: number) =>
      w === pool && block >= graduated ? balanceKind.pool : balanceKind.holder;
    const state = { ...fresh(), holders: 1 };
    const history = foldTokenHistory(
      token,
      stepsOf([
        [pool, 25, 4n],
        [pool, graduated, 0n],
        [pool, 31, 6n],
      ]),
      () => ({ balance: 1n, kind: balanceKind.holder, since: 2 }),
      kindAt,
      state,
      HISTORY_SEGMENT_MIN_EVENTS,
    );
    expect(history.lines.map(parse)).toEqual([
      { wallet: pool, from: 2, to: 25, balance: 1n, kind: balanceKind.holder, segment: 0 },
      { wallet: pool, from: 25, to: 30, balance: 5n, kind: balanceKind.holder, segment: 0 },
      { wallet: pool, from: 30, to: 31, balance: 5n, kind: balanceKind.pool, segment: 0 },
    ]);
    expect(history.changes[0]).toMatchObject({ after: 11n, kind: balanceKind.pool, since: 31 });
    expect(state.holders).toBe(0);
  });

  it('starts a segment at the end of the block where the countdown runs out, and cuts every interval open across it', () => {
    const state: HistoryState = { holders: 3, historySegment: 7, historyCountdown: 3 };
    const stored: Record<string, StoredBalance> = {
      [alice]: { balance: 10n, kind: balanceKind.holder, since: 3 },
      [bob]: { balance: 5n, kind: balanceKind.holder, since: 8 },
      [carol]: { balance: 1n, kind: balanceKind.holder, since: 9 },
    };
    const history = foldTokenHistory(
      token,
      stepsOf([
        [alice, 40, 1n], // 2 events (closed and opened): countdown 1
        [bob, 41, 2n], // 2 more: countdown -1, a segment starts at 41
        [bob, 45, 1n],
        [carol, 50, 0n], // no move: carol's cut is written from `balances`
      ]),
      (w) => stored[w] ?? null,
      holderOnly,
      state,
      HISTORY_SEGMENT_MIN_EVENTS,
    );
    expect(history.splits).toEqual([41]);
    expect(history.segmentBefore).toBe(7);
    expect(history.lines.map(parse)).toEqual([
      // alice's interval opened at 40 is cut at 41 and continues from 41 in the new segment.
      { wallet: alice, from: 7, to: 40, balance: 10n, kind: 0, segment: 7 },
      { wallet: alice, from: 40, to: 41, balance: 11n, kind: 0, segment: 7 },
      // bob moved at 41 itself: his interval from 41 is the new segment's already.
      { wallet: bob, from: 8, to: 41, balance: 5n, kind: 0, segment: 7 },
      { wallet: bob, from: 41, to: 45, balance: 7n, kind: 0, segment: 41 },
    ]);
    expect(history.changes.map((c) => [c.wallet, c.after, c.since])).toEqual([
      [alice, 11n, 40],
      [bob, 8n, 45],
      [carol, 1n, 9],
    ]);
    // Holders when the segment started: 3 (its countdown has the minimum); bob's move at 45 counts.
    expect(state).toEqual({
      holders: 3,
      historySegment: 41,
      historyCountdown: HISTORY_SEGMENT_MIN_EVENTS - 2,
    });
  });

  it('cuts at the same blocks and writes the same intervals however the blocks are split into ranges', () => {
    const move = fc.record({
      wallet: fc.integer({ min: 1, max: 6 }),
      gap: fc.integer({ min: 0, max: 3 }),
      delta: fc.bigInt({ min: -3n, max: 4n }),
    });
    fc.assert(
      fc.property(
        fc.array(move, { minLength: 1, maxLength: 120 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 12 }),
        (raw, cuts, countdown) => {
          // Blocks ascending from 1; a delta never takes a balance below zero.
          const held = new Map<string, bigint>();
          let block = 1;
          const moves: [string, number, bigint][] = raw.map(({ wallet: n, gap, delta }) => {
            block += gap;
            const address = wallet(n);
            const balance = held.get(address) ?? 0n;
            const safe = balance + delta < 0n ? -balance : delta;
            held.set(address, balance + safe);
            return [address, block, safe];
          });
          const start = (): HistoryState => ({ holders: 0, historySegment: 0, historyCountdown: countdown });
          const whole = replay(moves, [moves.length === 0 ? 1 : block + 1], start());
          const ranges = [...new Set(cuts.filter((c) => c <= block))].sort((a, b) => a - b);
          const pieces = replay(moves, [...ranges, block + 1], start());
          expect(pieces.lines).toEqual(whole.lines);
          expect(pieces.state).toEqual(whole.state);
          expect(pieces.rows).toEqual(whole.rows);
          // Every interval says the balance the moves give at each of its blocks.
          for (const interval of whole.lines.map(parse))
            for (const at of [interval.from, interval.to - 1])
              expect(balanceAt(moves, interval.wallet, at)).toBe(interval.balance);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('cuts more than once when the moves of one range run several countdowns out', () => {
    const moves: [string, number, bigint][] = [];
    for (let block = 1; block <= 1_400; block++) moves.push([wallet(1 + (block % 3)), block, 1n]);
    const state: HistoryState = { holders: 0, historySegment: 0, historyCountdown: 10 };
    const history = foldTokenHistory(token, stepsOf(moves), () => null, holderOnly, state, 1_000);
    // 1 event a wallet's first move, 2 each later one: 10 run out at block 7, then 1,000 at a time.
    expect(history.splits).toEqual([7, 507, 1007]);
    expect(state.historySegment).toBe(1007);
    // Each wallet's intervals tile its blocks: from its first move to its last, cut at each start.
    for (const n of [1, 2, 3]) {
      const mine = history.lines.map(parse).filter((i) => i.wallet === wallet(n));
      for (let i = 1; i < mine.length; i++) expect(mine[i]?.from).toBe(mine[i - 1]?.to);
    }
  });
});

/** The balance a wallet holds at the end of block `at`, from the moves. */
function balanceAt(moves: readonly [string, number, bigint][], address: string, at: number): bigint {
  let balance = 0n;
  for (const [w, block, delta] of moves) if (w === address && block <= at) balance += delta;
  return balance;
}

/**
 * Folds `moves` range by range (each ends before the next boundary), keeping the rows between
 * ranges as the indexer does, and cutting the rows a range did not move at its segment starts as
 * write-balances.ts does in SQL.
 */
function replay(moves: readonly [string, number, bigint][], boundaries: number[], state: HistoryState) {
  const rows = new Map<string, StoredBalance>();
  const lines: string[] = [];
  let from = 1;
  for (const end of boundaries) {
    const mine = moves.filter(([, block]) => block >= from && block < end);
    if (end <= from) continue;
    const before = new Map(rows);
    // A small minimum: ranges of a few dozen moves start several segments.
    const history = foldTokenHistory(
      token,
      stepsOf(mine),
      (w) => before.get(w) ?? null,
      holderOnly,
      state,
      3,
    );
    lines.push(...history.lines);
    let previous = history.segmentBefore;
    for (const split of history.splits) {
      for (const [address, row] of before)
        if (!history.changes.some((c) => c.wallet === address && c.since >= from))
          lines.push(
            `${token}\t${address}\t${Math.max(row.since, previous)}\t${split}\t${row.balance}\t${row.kind}\t${previous}`,
          );
      previous = split;
    }
    for (const change of history.changes) {
      if (change.after === 0n) rows.delete(change.wallet);
      else rows.set(change.wallet, { balance: change.after, kind: change.kind, since: change.since });
    }
    from = end;
  }
  const key = (line: string) => {
    const i = parse(line);
    return `${i.wallet} ${String(i.from).padStart(6, '0')}`;
  };
  return { lines: lines.sort((a, b) => (key(a) < key(b) ? -1 : 1)), state, rows };
}
