import { describe, expect, it } from 'vitest';
import type { RawLog } from '../decode/events';
import type { BlockHeader } from '../sync/range-algebra';
import { decodeChunk, encodeChunk, encodeLog } from './log-chunk';

const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const header = (number: number): BlockHeader => ({
  number,
  hash: word(number * 7 + 1),
  parentHash: word(number * 7 - 6),
  timestamp: 1_767_225_600 + number * 2,
});
const log = (block: number, index: number, topics: number, dataWords: number): RawLog => ({
  address: `0x${(index + 0xab).toString(16).padStart(40, '0')}`,
  topics: Array.from({ length: topics }, (_, i) => word(i + index)),
  data: `0x${Array.from({ length: dataWords }, (_, i) => word(i + block).slice(2)).join('')}`,
  blockNumber: `0x${block.toString(16)}`,
  blockHash: header(block).hash,
  transactionHash: word(block * 1000 + index),
  transactionIndex: `0x${(index % 3).toString(16)}`,
  logIndex: `0x${index.toString(16)}`,
});

describe('log chunks', () => {
  it('give back every log and header as the RPC had them, block hash from the header', () => {
    const logs = [
      log(10_000_000, 0, 3, 1),
      log(10_000_000, 1, 1, 11),
      log(10_000_003, 0, 0, 0),
      log(2 ** 40, 300, 4, 2),
    ];
    const headers = [header(2 ** 40), header(10_000_000), header(10_000_003), header(10_000_009)];
    const decoded = decodeChunk(encodeChunk({ headers, records: logs.map(encodeLog) }));
    expect(decoded.headers).toEqual([...headers].sort((a, b) => a.number - b.number));
    expect(decoded.logs.map(([raw]) => raw)).toEqual(logs);
  });

  it('keeps records as they are: a chunk of records read back is the same bytes', () => {
    const logs = Array.from({ length: 50 }, (_, i) => log(20 + Math.floor(i / 7), i, 1 + (i % 4), i % 12));
    const headers = [...new Set(logs.map((l) => Number.parseInt(l.blockNumber, 16)))].map(header);
    const bytes = encodeChunk({ headers, records: logs.map(encodeLog) });
    const decoded = decodeChunk(bytes);
    expect(encodeChunk({ headers: decoded.headers, records: decoded.logs.map(([, r]) => r) })).toEqual(bytes);
    // Records of two chunks concatenated make a chunk of both.
    const second = decodeChunk(
      encodeChunk({ headers: [header(99)], records: [encodeLog(log(99, 0, 2, 3))] }),
    );
    const merged = decodeChunk(
      encodeChunk({
        headers: [...decoded.headers, ...second.headers],
        records: [...decoded.logs, ...second.logs].map(([, r]) => r),
      }),
    );
    expect(merged.logs.map(([raw]) => raw)).toEqual([...logs, log(99, 0, 2, 3)]);
  });

  it('writes records across slabs and of any size (a launch name of 2 MB)', () => {
    const big = { ...log(5, 0, 3, 0), data: `0x${'ef'.repeat(2 * 2 ** 20)}` };
    const many = Array.from({ length: 6_000 }, (_, i) => log(6, i, 3, 8));
    const all = [big, ...many];
    const decoded = decodeChunk(
      encodeChunk({ headers: [header(5), header(6)], records: all.map(encodeLog) }),
    );
    expect(decoded.logs.map(([raw]) => raw)).toEqual(all);
  });

  it('keeps the blocks of the funding check: their place in the chain and their payments', () => {
    const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
    const fundingBlocks = [
      { number: 9, hash: word(90), parentHash: word(80), transfers: [] },
      {
        number: 10,
        hash: word(100),
        parentHash: word(90),
        transfers: [
          { from: address(1), to: address(2), index: 0 },
          { from: address(1), to: address(3), index: 300 },
          { from: address(4), to: address(1), index: 301 },
        ],
      },
    ];
    const decoded = decodeChunk(
      encodeChunk({ headers: [header(10)], records: [encodeLog(log(10, 0, 1, 1))], fundingBlocks }),
    );
    expect(decoded.fundingBlocks).toEqual(fundingBlocks);
    expect(decodeChunk(encodeChunk({ headers: [], records: [] })).fundingBlocks).toEqual([]);
  });

  it('lowercases what it stores (hex is case-free)', () => {
    const mixed = { ...log(7, 0, 1, 1), address: '0x00000000000000000000000000000000000000AB' };
    const [[raw]] = decodeChunk(encodeChunk({ headers: [header(7)], records: [encodeLog(mixed)] })).logs as [
      [RawLog, Uint8Array],
    ];
    expect(raw.address).toBe('0x00000000000000000000000000000000000000ab');
  });

  it('refuses malformed logs and chunks', () => {
    expect(() => encodeLog({ ...log(1, 0, 1, 1), transactionHash: '0x12' })).toThrow(/malformed/);
    expect(() => encodeLog({ ...log(1, 0, 1, 1), address: `0x${'zz'.repeat(20)}` })).toThrow(/malformed/);
    expect(() => encodeLog({ ...log(1, 0, 1, 1), data: '0x123' })).toThrow(/malformed/);
    expect(() => encodeLog(log(1, 0, 5, 1))).toThrow(/malformed/);
    const bytes = encodeChunk({ headers: [header(1)], records: [encodeLog(log(1, 0, 2, 2))] });
    expect(() => decodeChunk(bytes.subarray(0, bytes.length - 1))).toThrow(/truncated/);
    expect(() => decodeChunk(Buffer.concat([bytes, Buffer.from([0])]))).toThrow(/after its last block/);
    expect(() => decodeChunk(Buffer.concat([Buffer.from([2]), bytes.subarray(1)]))).toThrow(/version/);
    const headless = encodeChunk({ headers: [header(2)], records: [encodeLog(log(1, 0, 2, 2))] });
    expect(() => decodeChunk(headless)).toThrow(/without its header/);
  });
});
