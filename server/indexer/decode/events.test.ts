import { encodeAbiParameters, encodeEventTopics, type Hex, pad } from 'viem';
import { describe, expect, it } from 'vitest';
import { launchFactoryAbi, uniswapV3PoolAbi } from '../../chain/abis';
import { encodeChunk, encodeLog, rawLogOf, readChunk } from '../store/log-chunk';
import { decodeBinaryLog, decodeLog, type RawLog, topics } from './events';

const provenance = {
  blockNumber: '0x10',
  blockHash: `0x${'ab'.repeat(32)}`,
  transactionHash: `0x${'cd'.repeat(32)}`,
  transactionIndex: '0x2',
  logIndex: '0x7',
};
const token = '0x00000000000000000000000000000000000000aa';
const creator = '0x00000000000000000000000000000000000000bb';

describe('event decoders', () => {
  it('decodes TokenLaunched including dynamic strings, replacing NUL', () => {
    const [, ...indexed] = encodeEventTopics({
      abi: launchFactoryAbi,
      eventName: 'TokenLaunched',
      args: { token, creator },
    });
    const data = encodeAbiParameters(
      [
        { type: 'address' },
        { type: 'string' },
        { type: 'string' },
        { type: 'uint256' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint16' },
        { type: 'uint16' },
      ],
      [
        '0x00000000000000000000000000000000000000cc',
        'Pepe ドージ\u0000x',
        'PEPE',
        10n ** 27n,
        pad('0x1234'),
        1n,
        2n,
        3n,
        4n,
        100,
        50,
      ],
    );
    const log: RawLog = {
      address: '0xf',
      topics: [topics.launch, ...(indexed as Hex[])],
      data,
      ...provenance,
    };
    expect(decodeLog(log)).toEqual({
      type: 'launch',
      blockNumber: 16,
      blockHash: provenance.blockHash,
      transactionHash: provenance.transactionHash,
      transactionIndex: 2,
      logIndex: 7,
      token,
      creator,
      curve: '0x00000000000000000000000000000000000000cc',
      name: 'Pepe ドージ\uFFFDx',
      symbol: 'PEPE',
      totalSupply: 10n ** 27n,
      metadataHash: pad('0x1234'),
      virtualTokenReserve: 1n,
      virtualReserve: 2n,
      realTokenReserve: 3n,
      graduationThreshold: 4n,
      protocolFeeBps: 100,
      creatorFeeBps: 50,
    });
  });

  it('decodes Swap with signed amounts and tick', () => {
    const [, ...indexed] = encodeEventTopics({
      abi: uniswapV3PoolAbi,
      eventName: 'Swap',
      args: { sender: token, recipient: creator },
    });
    const data = encodeAbiParameters(
      [{ type: 'int256' }, { type: 'int256' }, { type: 'uint160' }, { type: 'uint128' }, { type: 'int24' }],
      [-5n, 7_000_000n, 2n ** 96n, 10n ** 18n, -887220],
    );
    const decoded = decodeLog({
      address: '0xPOOL',
      topics: [topics.swap, ...(indexed as Hex[])],
      data,
      ...provenance,
    });
    expect(decoded).toMatchObject({
      type: 'swap',
      pool: '0xpool',
      amount0: -5n,
      amount1: 7_000_000n,
      tick: -887220,
      recipient: creator,
    });
  });

  it('ignores unknown topics and ERC-721 style transfers', () => {
    expect(
      decodeLog({ address: '0x1', topics: [`0x${'00'.repeat(32)}`], data: '0x', ...provenance }),
    ).toBeUndefined();
    expect(
      decodeLog({
        address: '0x1',
        topics: [topics.transfer, pad(token), pad(creator), pad('0x01')],
        data: '0x',
        ...provenance,
      }),
    ).toBeUndefined();
  });
});

describe('decoding a stored log from its bytes', () => {
  const pool = '0x00000000000000000000000000000000000000dd';
  /** The log as the event store reads it back, and as hex. */
  const stored = (log: Omit<RawLog, keyof typeof provenance>) => {
    const raw = { ...log, ...provenance };
    const chunk = encodeChunk({
      headers: [{ number: 16, hash: provenance.blockHash, parentHash: `0x${'00'.repeat(32)}`, timestamp: 1 }],
      records: [encodeLog(raw)],
    });
    const [read] = readChunk(chunk).logs;
    if (!read) throw new Error('no log');
    return { read, hex: decodeLog(rawLogOf(read)) };
  };
  const swapTopics = () =>
    encodeEventTopics({
      abi: uniswapV3PoolAbi,
      eventName: 'Swap',
      args: { sender: token, recipient: creator },
    });

  it('equals the hex decoding: signed and unsigned words of every width, addresses, a bool', () => {
    for (const [amount0, amount1, tick] of [
      [-5n, 7_000_000n, -887220],
      [2n ** 200n, -(2n ** 255n), 887220],
      [0n, 1n, 0],
      [2n ** 64n - 1n, 2n ** 64n, -1],
    ] as const) {
      const data = encodeAbiParameters(
        [{ type: 'int256' }, { type: 'int256' }, { type: 'uint160' }, { type: 'uint128' }, { type: 'int24' }],
        [amount0, amount1, 2n ** 96n, 10n ** 18n, tick],
      );
      const { read, hex } = stored({ address: pool, topics: swapTopics() as string[], data });
      expect(hex).toMatchObject({ type: 'swap', amount0, amount1, tick });
      expect(decodeBinaryLog(read)).toEqual(hex);
    }
    const [, ...trade] = encodeEventTopics({
      abi: launchFactoryAbi,
      eventName: 'Trade',
      args: { token, trader: creator },
    });
    const words = Array.from({ length: 10 }, (_, i) =>
      pad(`0x${(i === 0 ? 1 : 10 ** i).toString(16)}`).slice(2),
    );
    const { read, hex } = stored({
      address: pool,
      topics: [topics.trade, ...(trade as string[])],
      data: `0x${words.join('')}`,
    });
    expect(hex).toMatchObject({ type: 'trade', isBuy: true });
    expect(decodeBinaryLog(read)).toEqual(hex);
  });

  it('leaves every other log to the hex decoding', () => {
    const transfer = [topics.transfer, pad(token), pad(creator)];
    // An ERC-721 Transfer (the id indexed), a short or long data, an unknown topic0, no topic.
    for (const log of [
      { topics: [...transfer, pad('0x01')], data: '0x' },
      { topics: transfer, data: `0x${'01'.repeat(31)}` },
      { topics: transfer, data: `0x${'01'.repeat(33)}` },
      { topics: [`0x${'00'.repeat(32)}`, pad(token), pad(creator)], data: `0x${'01'.repeat(32)}` },
      { topics: [], data: '0x' },
    ])
      expect(decodeBinaryLog(stored({ address: pool, ...log }).read)).toBeUndefined();
    const { read, hex } = stored({ address: pool, topics: transfer, data: `0x${'01'.repeat(32)}` });
    expect(decodeBinaryLog(read)).toEqual(hex);
  });
});
