import { encodeAbiParameters, encodeEventTopics, type Hex, pad } from 'viem';
import { describe, expect, it } from 'vitest';
import { launchFactoryAbi, uniswapV3PoolAbi } from '../../chain/abis';
import { decodeLog, type RawLog, topics } from './events';

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
