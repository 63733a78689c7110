import type { Provenance, RawLog } from '../decode/events';
import type { FundingBlock } from '../project/funding';
import type { BlockHeader } from '../sync/range-algebra';

/**
 * The event store's binary form (server/indexer/store/): the raw logs one projection write read,
 * and the block headers it held, in one `raw_log_chunks` row per write. A log is a record of its
 * own (block, log index, transaction index and hash, emitter, topics, data), so the records of
 * logs read back from the store are copied as they are into the chunks of a rebuild's writes.
 * The block hash is its header's (the fetch checks that every log's is), not repeated per log.
 *
 *   chunk:  version (1) · header count · headers · log count · records · block count · blocks
 *   header: number · hash (32) · parent hash (32) · timestamp
 *   record: block · log index · transaction index · topic count (1 byte) · data length
 *           · transaction hash (32) · address (20) · topics (32 each) · data
 *   block:  number · hash (32) · parent hash (32) · payment count · payments
 *   payment: from (20) · to (20) · transaction index
 *
 * The blocks are those the funding check (sync/funding-blocks.ts) read from the RPC for the write's
 * first buys, reduced to what it reads of them: the payments (transactions with a value).
 *
 * The bytes after the lengths are the log's hex fields in one run, written by one call (a call
 * per field cost three times as much: the per-call overhead, not the bytes, is the price).
 *
 * Numbers are unsigned LEB128 varints.
 */
const VERSION = 1;

/** Records are written into slabs of this size (one allocation per slab, a view per record). */
const SLAB_BYTES = 1 << 20;
let slab = Buffer.allocUnsafe(SLAB_BYTES);
let slabUsed = 0;

function varintBytes(value: number): number {
  let bytes = 1;
  for (let n = value; n >= 0x80; n = Math.floor(n / 0x80)) bytes++;
  return bytes;
}

function writeVarint(buffer: Buffer, at: number, value: number): number {
  let n = value;
  let offset = at;
  while (n >= 0x80) {
    buffer[offset++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buffer[offset++] = n;
  return offset;
}

/** A read position in a chunk: varints are read through it without a tuple per number. */
interface Cursor {
  buffer: Buffer;
  at: number;
}

function readVarint(c: Cursor): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = c.buffer[c.at++];
    if (byte === undefined) throw new Error('truncated log chunk');
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
  }
}

const quantity = (hex: string) => Number.parseInt(hex, 16);

/** Writes `hex` (0x-prefixed) at `at` as exactly `bytes` bytes, or throws. */
function writeHex(buffer: Buffer, at: number, hex: string, bytes: number): number {
  if (hex.length !== 2 + bytes * 2 || buffer.write(hex.slice(2), at, bytes, 'hex') !== bytes)
    throw new Error(`malformed log field ${hex.slice(0, 20)}… (${bytes} bytes expected)`);
  return at + bytes;
}

/**
 * The record of one log, as a view into a shared slab: it is made when the log is decoded (the
 * parsed JSON log then dies young) and lives until the write that stores it.
 */
export function encodeLog(log: RawLog): Uint8Array {
  const block = quantity(log.blockNumber);
  const logIndex = quantity(log.logIndex);
  const transactionIndex = quantity(log.transactionIndex);
  const dataBytes = (log.data.length - 2) / 2;
  if (!Number.isInteger(dataBytes) || log.topics.length > 4) throw new Error('malformed log');
  const size =
    varintBytes(block) +
    varintBytes(logIndex) +
    varintBytes(transactionIndex) +
    32 +
    20 +
    1 +
    32 * log.topics.length +
    varintBytes(dataBytes) +
    dataBytes;
  // Lengths first: a wrong one would misplace every field after it, and a bad hex digit stops the write short.
  if (
    log.transactionHash.length !== 66 ||
    log.address.length !== 42 ||
    log.topics.some((t) => t.length !== 66)
  )
    throw new Error(`malformed log at ${log.blockNumber}:${log.logIndex}`);
  const hex =
    log.transactionHash.slice(2) +
    log.address.slice(2) +
    (log.topics.length === 0 ? '' : log.topics.map((topic) => topic.slice(2)).join('')) +
    log.data.slice(2);
  let buffer = slab;
  let at = slabUsed;
  if (size > SLAB_BYTES / 4) {
    buffer = Buffer.allocUnsafe(size);
    at = 0;
  } else if (slabUsed + size > SLAB_BYTES) {
    slab = Buffer.allocUnsafe(SLAB_BYTES);
    slabUsed = 0;
    buffer = slab;
    at = 0;
  }
  const start = at;
  at = writeVarint(buffer, at, block);
  at = writeVarint(buffer, at, logIndex);
  at = writeVarint(buffer, at, transactionIndex);
  buffer[at++] = log.topics.length;
  at = writeVarint(buffer, at, dataBytes);
  const bytes = 52 + 32 * log.topics.length + dataBytes;
  if (buffer.write(hex, at, bytes, 'hex') !== bytes)
    throw new Error(`malformed log at ${log.blockNumber}:${log.logIndex}: not hex`);
  at += bytes;
  if (buffer === slab) slabUsed = at;
  return buffer.subarray(start, at);
}

/** A chunk's contents: its headers, its logs' records (in the order written), the funding check's blocks. */
export interface LogChunk {
  headers: BlockHeader[];
  records: Uint8Array[];
  fundingBlocks?: readonly FundingBlock[];
}

/** The bytes of a chunk; `headers` in any order, `records` in chain order. */
export function encodeChunk({ headers, records, fundingBlocks = [] }: LogChunk): Buffer {
  const sorted = [...headers].sort((a, b) => a.number - b.number);
  let size = 1 + varintBytes(sorted.length) + varintBytes(records.length) + varintBytes(fundingBlocks.length);
  for (const h of sorted) size += varintBytes(h.number) + 64 + varintBytes(h.timestamp);
  for (const record of records) size += record.length;
  for (const block of fundingBlocks) {
    size += varintBytes(block.number) + 64 + varintBytes(block.transfers.length);
    for (const transfer of block.transfers) size += 40 + varintBytes(transfer.index);
  }
  const buffer = Buffer.allocUnsafe(size);
  let at = 0;
  buffer[at++] = VERSION;
  at = writeVarint(buffer, at, sorted.length);
  for (const h of sorted) {
    at = writeVarint(buffer, at, h.number);
    at = writeHex(buffer, at, h.hash, 32);
    at = writeHex(buffer, at, h.parentHash, 32);
    at = writeVarint(buffer, at, h.timestamp);
  }
  at = writeVarint(buffer, at, records.length);
  for (const record of records) {
    buffer.set(record, at);
    at += record.length;
  }
  at = writeVarint(buffer, at, fundingBlocks.length);
  for (const block of fundingBlocks) {
    at = writeVarint(buffer, at, block.number);
    at = writeHex(buffer, at, block.hash, 32);
    at = writeHex(buffer, at, block.parentHash, 32);
    at = writeVarint(buffer, at, block.transfers.length);
    for (const transfer of block.transfers) {
      at = writeHex(buffer, at, transfer.from, 20);
      at = writeHex(buffer, at, transfer.to, 20);
      at = writeVarint(buffer, at, transfer.index);
    }
  }
  return buffer;
}

const hexOf = (buffer: Buffer, from: number, to: number) => `0x${buffer.toString('hex', from, to)}`;

/** A stored log as read from its chunk: its provenance, where its parts lie in the chunk's bytes, its record. */
export interface StoredLog {
  provenance: Provenance;
  bytes: Buffer;
  address: number;
  topics: number;
  topicCount: number;
  data: number;
  dataLength: number;
  record: Buffer;
}

/** A chunk's headers, its logs (records in place, provenance read) and its funding blocks. */
export function readChunk(bytes: Uint8Array): {
  headers: BlockHeader[];
  logs: StoredLog[];
  fundingBlocks: FundingBlock[];
} {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer[0] !== VERSION) throw new Error(`log chunk of unknown version ${buffer[0]}`);
  const c: Cursor = { buffer, at: 1 };
  const headers: BlockHeader[] = [];
  const hashes = new Map<number, string>();
  for (let i = readVarint(c); i > 0; i--) {
    const number = readVarint(c);
    const hash = hexOf(buffer, c.at, c.at + 32);
    const parentHash = hexOf(buffer, c.at + 32, c.at + 64);
    c.at += 64;
    headers.push({ number, hash, parentHash, timestamp: readVarint(c) });
    hashes.set(number, hash);
  }
  const logs: StoredLog[] = [];
  for (let i = readVarint(c); i > 0; i--) {
    const start = c.at;
    const blockNumber = readVarint(c);
    const logIndex = readVarint(c);
    const transactionIndex = readVarint(c);
    const topicCount = buffer[c.at++] ?? 0;
    const dataLength = readVarint(c);
    const hashAt = c.at;
    c.at += 52 + 32 * topicCount + dataLength;
    if (c.at > buffer.length) throw new Error('truncated log chunk');
    const blockHash = hashes.get(blockNumber);
    if (blockHash === undefined)
      throw new Error(`log chunk holds a log of block ${blockNumber} without its header`);
    logs.push({
      provenance: {
        blockNumber,
        blockHash,
        transactionHash: hexOf(buffer, hashAt, hashAt + 32),
        transactionIndex,
        logIndex,
      },
      bytes: buffer,
      address: hashAt + 32,
      topics: hashAt + 52,
      topicCount,
      data: hashAt + 52 + 32 * topicCount,
      dataLength,
      record: buffer.subarray(start, c.at),
    });
  }
  const fundingBlocks: FundingBlock[] = [];
  for (let i = readVarint(c); i > 0; i--) {
    const number = readVarint(c);
    const hash = hexOf(buffer, c.at, c.at + 32);
    const parentHash = hexOf(buffer, c.at + 32, c.at + 64);
    c.at += 64;
    const transfers: FundingBlock['transfers'] = [];
    for (let p = readVarint(c); p > 0; p--) {
      const from = hexOf(buffer, c.at, c.at + 20);
      const to = hexOf(buffer, c.at + 20, c.at + 40);
      c.at += 40;
      transfers.push({ from, to, index: readVarint(c) });
    }
    fundingBlocks.push({ number, hash, parentHash, transfers });
  }
  if (c.at !== buffer.length) throw new Error('log chunk has bytes after its last block');
  return { headers, logs, fundingBlocks };
}

/** A stored log as eth_getLogs answered it (hex, lowercase). */
export function rawLogOf(log: StoredLog): RawLog {
  const { bytes, provenance } = log;
  const topics: string[] = [];
  for (let t = 0; t < log.topicCount; t++)
    topics.push(hexOf(bytes, log.topics + 32 * t, log.topics + 32 * t + 32));
  return {
    address: hexOf(bytes, log.address, log.address + 20),
    topics,
    data: hexOf(bytes, log.data, log.data + log.dataLength),
    blockNumber: `0x${provenance.blockNumber.toString(16)}`,
    blockHash: provenance.blockHash,
    transactionHash: provenance.transactionHash,
    transactionIndex: `0x${provenance.transactionIndex.toString(16)}`,
    logIndex: `0x${provenance.logIndex.toString(16)}`,
  };
}

/** The header list, for each record the log it holds (its block hash from its header), the funding blocks. */
export function decodeChunk(bytes: Uint8Array): {
  headers: BlockHeader[];
  logs: [RawLog, Uint8Array][];
  fundingBlocks: FundingBlock[];
} {
  const { headers, logs, fundingBlocks } = readChunk(bytes);
  return { headers, logs: logs.map((log) => [rawLogOf(log), log.record]), fundingBlocks };
}
