import { describe, expect, it } from 'vitest';
import type { DecodedEvent } from '../decode/events';
import {
  type BlockHeader,
  blockSlices,
  type RangeData,
  splitAtBlock,
  splitRange,
  tokenOfPool,
} from './range-algebra';

const alice = '0x00000000000000000000000000000000000000a1';
const bob = '0x00000000000000000000000000000000000000b0';
const token = '0x00000000000000000000000000000000000000aa';

let logIndex = 0;
const transfer = (blockNumber: number): DecodedEvent => ({
  type: 'transfer',
  blockNumber,
  blockHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
  transactionHash: `0x${'0'.repeat(63)}${blockNumber % 10}`,
  transactionIndex: 0,
  logIndex: logIndex++,
  token,
  from: alice,
  to: bob,
  value: 1n,
});
const header = (number: number): BlockHeader => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  parentHash: `0x${(number - 1).toString(16).padStart(64, '0')}`,
  timestamp: 1_700_000_000 + number * 12,
});
/** A fetched range as fetch-range assembles it: headers of both ends and of every block with an event. */
const rangeOf = (from: number, to: number, blocks: number[]): RangeData => {
  const events = blocks.map(transfer);
  const headers = new Map<number, BlockHeader>();
  for (const n of [from, to, ...blocks]) headers.set(n, header(n));
  return { from, to, events, headers, logCount: events.length, pools: new Map([[bob, token]]) };
};

describe('splitRange', () => {
  it('cuts at block boundaries into contiguous parts that keep every event', () => {
    const range = rangeOf(1, 9, [1, 1, 1, 2, 2, 3, 4, 4, 4, 4]);
    const parts = splitRange(range, 3);
    expect(parts.map((p) => [p.from, p.to])).toEqual([
      [1, 1],
      [2, 3],
      [4, 9],
    ]);
    expect(parts.flatMap((p) => p.events)).toEqual(range.events);
    for (const part of parts) expect(part.headers.has(part.to)).toBe(true);
    expect(splitRange(range, 100)).toEqual([range]);
  });

  it('cuts into equal parts, and leaves a range at most a quarter over the limit whole', () => {
    const range = rangeOf(
      1,
      17,
      Array.from({ length: 17 }, (_, i) => i + 1),
    );
    // Cut at the limit, 17 events in parts of 8 left a write of one event.
    expect(splitRange(range, 8).map((p) => p.events.length)).toEqual([6, 6, 5]);
    expect(splitRange(range, 14)).toEqual([range]);
    expect(splitRange(range, 13).map((p) => p.events.length)).toEqual([9, 8]);
  });

  it('leaves an empty range, and a range of one block, whole whatever the limit', () => {
    const empty = rangeOf(5, 40, []);
    expect(splitRange(empty, 1)).toEqual([empty]);
    // A block is never split: its events are one write, however many.
    const oneBlock = rangeOf(7, 7, [7, 7, 7, 7, 7]);
    expect(splitRange(oneBlock, 1)).toEqual([oneBlock]);
  });

  it('with a limit of one event, writes each block of a range on its own and keeps the parts gapless', () => {
    const range = rangeOf(10, 20, [10, 12, 12, 15, 20]);
    const parts = splitRange(range, 1);
    expect(parts.map((p) => [p.from, p.to])).toEqual([
      [10, 10],
      [11, 12],
      [13, 15],
      [16, 20],
    ]);
    expect(parts.map((p) => p.events.length)).toEqual([1, 2, 1, 1]);
    expect(parts.every((p) => p.logCount === p.events.length && p.pools === range.pools)).toBe(true);
  });

  it('ends the last part at the range end when the last event is before it', () => {
    const parts = splitRange(rangeOf(1, 50, [1, 2, 3, 4]), 1);
    expect(parts.at(-1)?.to).toBe(50);
    expect(parts.at(-1)?.headers.has(50)).toBe(true);
  });
});

describe('splitAtBlock', () => {
  it('cuts after the given block, events and headers on their side, and leaves a range it does not cut whole', () => {
    const range = rangeOf(1, 9, [1, 2, 2, 5, 7]);
    const [final, recent] = splitAtBlock(range, 4);
    expect([final?.from, final?.to, recent?.from, recent?.to]).toEqual([1, 4, 5, 9]);
    expect(final?.events).toEqual(range.events.slice(0, 3));
    expect(recent?.events).toEqual(range.events.slice(3));
    expect([...(final?.headers.keys() ?? [])].every((n) => n <= 4)).toBe(true);
    expect([...(recent?.headers.keys() ?? [])].every((n) => n >= 5)).toBe(true);
    for (const block of [0, 9, 12]) expect(splitAtBlock(range, block)).toEqual([range]);
  });

  it('cuts at the bounds: after the first block, and before the last', () => {
    const range = rangeOf(1, 9, [1, 9]);
    const [first, rest] = splitAtBlock(range, 1);
    expect([first?.from, first?.to, first?.events.length, rest?.from, rest?.to, rest?.events.length]).toEqual(
      [1, 1, 1, 2, 9, 1],
    );
    const [most, last] = splitAtBlock(range, 8);
    expect([most?.to, last?.from, last?.to, last?.events.length]).toEqual([8, 9, 9, 1]);
  });

  it('leaves a range of one block and an empty range whole, and cuts an empty range into empty parts', () => {
    const one = rangeOf(4, 4, [4]);
    for (const block of [3, 4, 5]) expect(splitAtBlock(one, block)).toEqual([one]);
    const empty = rangeOf(1, 9, []);
    expect(splitAtBlock(empty, 4).map((p) => [p.from, p.to, p.events.length])).toEqual([
      [1, 4, 0],
      [5, 9, 0],
    ]);
  });
});

describe('blockSlices', () => {
  it('cuts a range into consecutive slices of nearly equal length, none shorter than 8 blocks', () => {
    expect(blockSlices(100, 199, 4)).toEqual([
      [100, 124],
      [125, 149],
      [150, 174],
      [175, 199],
    ]);
    expect(blockSlices(10, 20, 4)).toEqual([[10, 20]]);
    expect(blockSlices(1, 26, 4)).toEqual([
      [1, 9],
      [10, 17],
      [18, 26],
    ]);
    expect(blockSlices(0, 999, 1)).toEqual([[0, 999]]);
    const slices = blockSlices(10_004_000, 10_004_404, 4);
    expect(slices[0]?.[0]).toBe(10_004_000);
    expect(slices.at(-1)?.[1]).toBe(10_004_404);
    for (let i = 1; i < slices.length; i++) expect(slices[i]?.[0]).toBe((slices[i - 1]?.[1] ?? 0) + 1);
  });

  it('gives a single block, and a range just under two slices, one slice', () => {
    expect(blockSlices(5, 5, 4)).toEqual([[5, 5]]);
    expect(blockSlices(0, 14, 4)).toEqual([[0, 14]]);
    expect(blockSlices(0, 15, 4)).toEqual([
      [0, 7],
      [8, 15],
    ]);
  });

  it('asks one slice for a count of zero or one', () => {
    expect(blockSlices(0, 99, 0)).toEqual([[0, 99]]);
    expect(blockSlices(0, 99, 1)).toEqual([[0, 99]]);
  });
});

describe('tokenOfPool', () => {
  it("names the token of a pool the range holds Swaps of, and nothing for another's", () => {
    const range = rangeOf(1, 2, [1]);
    expect(tokenOfPool(range, bob)).toBe(token);
    expect(tokenOfPool(range, alice)).toBeUndefined();
  });
});
