import type { DecodedEvent, DecodedEventOf } from '../../server/indexer/decode/events';
import type { ProjectionContext } from '../../server/indexer/project/fold';
import type { BlockHeader, RangeData } from '../../server/indexer/sync/range-algebra';

/** The deployment the projection tests fold against: fixed addresses, no chain behind them. */
export const context: ProjectionContext = {
  chainId: 31337,
  factory: '0x00000000000000000000000000000000000000fa',
  graduator: '0x00000000000000000000000000000000000000f9',
  stable: '0x00000000000000000000000000000000000000f8',
  startBlock: 1,
  finalityDepth: 64,
};
export const token = '0x00000000000000000000000000000000000000aa';
export const curve = '0x00000000000000000000000000000000000000cc';
export const creator = '0x00000000000000000000000000000000000000bb';
export const alice = '0x00000000000000000000000000000000000000a1';
export const bob = '0x00000000000000000000000000000000000000b0';
export const zero = '0x0000000000000000000000000000000000000000';
export const ether = 10n ** 18n;

let logIndex = 0;
/** Where an event stands: derived from its block, with a log index that only grows. */
export const at = (blockNumber: number) => ({
  blockNumber,
  blockHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
  transactionHash: `0x${'0'.repeat(63)}${blockNumber % 10}`,
  transactionIndex: 0,
  logIndex: logIndex++,
});

/** The header of block `number`, chained to the header of `number - 1`, 12 s apart. */
export const header = (number: number): BlockHeader => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  parentHash: `0x${(number - 1).toString(16).padStart(64, '0')}`,
  timestamp: 1_700_000_000 + number * 12,
});

/** The launch of `token` on `curve` by `creator` with the default curve parameters. */
export const launchAt = (
  blockNumber: number,
  names: { name: string; symbol: string } = { name: 'T', symbol: 'T' },
): DecodedEventOf<'launch'> => ({
  ...at(blockNumber),
  type: 'launch',
  token,
  creator,
  curve,
  name: names.name,
  symbol: names.symbol,
  totalSupply: 1_000_000_000n * ether,
  metadataHash: `0x${'11'.repeat(32)}`,
  virtualTokenReserve: 1_073_000_000n * ether,
  virtualReserve: 30n * ether,
  realTokenReserve: 793_100_000n * ether,
  graduationThreshold: 85n * ether,
  protocolFeeBps: 100,
  creatorFeeBps: 50,
});

/** A fee-free trade of one token of `token` for `reserve`, leaving the curve at `virtualTokenReserve`. */
export const tradeAt = (
  blockNumber: number,
  trade: { trader: string; isBuy: boolean; reserve: bigint; virtualTokenReserve: bigint },
): DecodedEvent => ({
  ...at(blockNumber),
  type: 'trade',
  token,
  trader: trade.trader,
  isBuy: trade.isBuy,
  tokenAmount: ether,
  reserveAmount: trade.reserve,
  curveValue: trade.reserve,
  protocolFee: 0n,
  creatorFee: 0n,
  virtualTokenReserve: trade.virtualTokenReserve,
  virtualReserve: 30n * ether + trade.reserve,
  realTokenReserve: 793_000_000n * ether,
  realReserve: trade.reserve,
});

export const transferAt = (blockNumber: number, from: string, to: string, value: bigint): DecodedEvent => ({
  ...at(blockNumber),
  type: 'transfer',
  token,
  from,
  to,
  value,
});

/** The range `from..to` holding `events`, with a header for both ends and every event's block. */
export const rangeOf = (from: number, to: number, events: DecodedEvent[]): RangeData => {
  const headers = new Map<number, BlockHeader>();
  for (const n of [from, to, ...events.map((e) => e.blockNumber)]) headers.set(n, header(n));
  return { from, to, events, headers, logCount: events.length, pools: new Map() };
};
