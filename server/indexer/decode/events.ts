import { type AbiEvent, toEventSelector } from 'viem';
import { launchFactoryAbi, launchTokenAbi, uniswapV3PoolAbi } from '../../chain/abis';

/** A log as eth_getLogs returns it. */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed?: boolean;
}

export interface Provenance {
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
  /** The log's record in the event store (store/log-chunk.ts), attached by the fetch that read it. */
  raw?: Uint8Array;
}

export type DecodedEvent = Provenance &
  (
    | {
        type: 'launch';
        token: string;
        creator: string;
        curve: string;
        name: string;
        symbol: string;
        totalSupply: bigint;
        metadataHash: string;
        virtualTokenReserve: bigint;
        virtualReserve: bigint;
        realTokenReserve: bigint;
        graduationThreshold: bigint;
        protocolFeeBps: number;
        creatorFeeBps: number;
      }
    | {
        type: 'trade';
        token: string;
        trader: string;
        isBuy: boolean;
        tokenAmount: bigint;
        reserveAmount: bigint;
        curveValue: bigint;
        protocolFee: bigint;
        creatorFee: bigint;
        virtualTokenReserve: bigint;
        virtualReserve: bigint;
        realTokenReserve: bigint;
        realReserve: bigint;
      }
    | {
        type: 'graduation';
        token: string;
        pool: string;
        tokenAmount: bigint;
        reserveAmount: bigint;
        stableAmount: bigint;
        burnedTokenAmount: bigint;
        liquidity: bigint;
        sqrtPriceX96: bigint;
      }
    | { type: 'transfer'; token: string; from: string; to: string; value: bigint }
    | {
        type: 'swap';
        pool: string;
        sender: string;
        recipient: string;
        amount0: bigint;
        amount1: bigint;
        sqrtPriceX96: bigint;
        liquidity: bigint;
        tick: number;
      }
  );

export type DecodedEventOf<T extends DecodedEvent['type']> = Extract<DecodedEvent, { type: T }>;

function abiEvent(abi: readonly unknown[], name: string): AbiEvent {
  const event = abi.find((item) => (item as AbiEvent).type === 'event' && (item as AbiEvent).name === name) as
    | AbiEvent
    | undefined;
  if (!event) throw new Error(`event ${name} not in ABI`);
  return event;
}

const events = {
  launch: abiEvent(launchFactoryAbi, 'TokenLaunched'),
  trade: abiEvent(launchFactoryAbi, 'Trade'),
  graduation: abiEvent(launchFactoryAbi, 'Graduated'),
  transfer: abiEvent(launchTokenAbi, 'Transfer'),
  swap: abiEvent(uniswapV3PoolAbi, 'Swap'),
} as const;

/** topic0 of every event the indexer reads. */
export const topics = {
  launch: toEventSelector(events.launch),
  trade: toEventSelector(events.trade),
  graduation: toEventSelector(events.graduation),
  transfer: toEventSelector(events.transfer),
  swap: toEventSelector(events.swap),
} as const;

const TWO_255 = 2n ** 255n;
const TWO_256 = 2n ** 256n;

/** Head word `index` of a log's data, as hex digits. */
const slot = (data: string, index: number) => data.slice(2 + index * 64, 2 + (index + 1) * 64);
const word = (data: string, index: number) => BigInt(`0x${slot(data, index) || '0'}`);
const topicAddress = (topic: string | undefined) => `0x${(topic ?? '').slice(26).toLowerCase()}`;
const wordAddress = (data: string, index: number) => `0x${slot(data, index).slice(24).toLowerCase()}`;
const signed = (value: bigint) => (value >= TWO_255 ? value - TWO_256 : value);

/** A dynamic `string` at head word `index`. NUL is not storable in PostgreSQL text; it becomes U+FFFD. */
function wordString(data: string, index: number): string {
  const offset = Number(word(data, index));
  const start = 2 + offset * 2;
  const length = Number(BigInt(`0x${data.slice(start, start + 64)}`));
  const bytes = Buffer.from(data.slice(start + 64, start + 64 + length * 2), 'hex');
  return bytes.toString('utf8').replaceAll('\u0000', '\uFFFD');
}

function provenance(log: RawLog): Provenance {
  return {
    blockNumber: Number.parseInt(log.blockNumber, 16),
    blockHash: log.blockHash.toLowerCase(),
    transactionHash: log.transactionHash.toLowerCase(),
    transactionIndex: Number.parseInt(log.transactionIndex, 16),
    logIndex: Number.parseInt(log.logIndex, 16),
  };
}

/**
 * How a head word of ABI `type` is read: integers of up to 48 bits as numbers, wider ones as
 * bigints (as viem types them), two's complement for `int`.
 */
function wordReader(type: string): (data: string, index: number) => unknown {
  if (type === 'address') return wordAddress;
  if (type === 'string') return wordString;
  if (type === 'bool') return (data, index) => word(data, index) !== 0n;
  if (type === 'bytes32') return (data, index) => `0x${slot(data, index)}`;
  const integer = /^(u?)int(\d+)$/.exec(type);
  if (!integer) throw new Error(`no reader for ABI type ${type}`);
  const read = integer[1] === 'u' ? word : (data: string, index: number) => signed(word(data, index));
  return Number(integer[2]) <= 48 ? (data, index) => Number(read(data, index)) : read;
}

/**
 * The decoder of one event from its ABI: indexed inputs (addresses) from the topics after topic0,
 * the others from the data's head words in order, each under its ABI name, which is its name in
 * {@link DecodedEvent}. `emitter` names the field that holds the log's own address, if any.
 */
function eventDecoder(type: DecodedEvent['type'], event: AbiEvent, emitter?: string) {
  let topic = 1;
  let head = 0;
  const fields = event.inputs.map((input) => {
    if (!input.indexed) return { name: input.name as string, index: head++, read: wordReader(input.type) };
    if (input.type !== 'address') throw new Error(`indexed ${input.type} of ${event.name} is not read`);
    return { name: input.name as string, index: topic++, read: undefined };
  });
  return (log: RawLog): DecodedEvent => {
    const decoded = provenance(log) as unknown as Record<string, unknown>;
    decoded.type = type;
    if (emitter) decoded[emitter] = log.address.toLowerCase();
    for (const field of fields)
      decoded[field.name] = field.read
        ? field.read(log.data, field.index)
        : topicAddress(log.topics[field.index]);
    return decoded as unknown as DecodedEvent;
  };
}

/** Decoders by topic0. */
const decoders = new Map<string, (log: RawLog) => DecodedEvent>([
  [topics.transfer, eventDecoder('transfer', events.transfer, 'token')],
  [topics.launch, eventDecoder('launch', events.launch)],
  [topics.trade, eventDecoder('trade', events.trade)],
  [topics.graduation, eventDecoder('graduation', events.graduation)],
  [topics.swap, eventDecoder('swap', events.swap, 'pool')],
]);

/**
 * Decodes one log of a known event, or returns undefined for anything else (including a log
 * whose shape does not match, which a well-behaved contract never emits).
 */
export function decodeLog(log: RawLog): DecodedEvent | undefined {
  const topic0 = log.topics[0];
  // ERC-721 Transfer shares topic0 but indexes the id (4 topics): not ours.
  if (topic0 === topics.transfer && log.topics.length !== 3) return undefined;
  try {
    return decoders.get(topic0 ?? '')?.(log);
  } catch {
    return undefined;
  }
}
