import { type Abi, decodeEventLog, type Hex, type PublicClient } from 'viem';
import { launchFactoryAbi, launchTokenAbi, uniswapV3PoolAbi } from '../../server/chain/abis';

/**
 * The canonical chain as the oracle sees it: every launchpad, token and pool log between two
 * blocks, decoded by viem's generic ABI decoder (not the indexer's decoder), with the block hash
 * and timestamp each log was mined in. After reorgs this is the only ledger that is still true,
 * so the oracle reads it from the node rather than from what a simulator meant to do.
 */
export interface ChainView {
  factory: string;
  graduator: string;
  stable: string;
  head: { number: number; timestamp: number; hash: string };
  logs: ViewLog[];
  /**
   * Every transaction that sent native coin (value > 0) to an address, from block 0 on, in chain
   * order: what "funded by the creator" is read from (docs/api.md).
   */
  payments: Payment[];
}

export interface Payment {
  blockNumber: number;
  transactionIndex: number;
  from: string;
  to: string;
}

export interface ViewLog {
  address: string;
  eventName: string;
  /** Hex lowercase, integers as decimal text, booleans as booleans, text as mined. */
  args: Record<string, string | boolean>;
  blockNumber: number;
  blockHash: string;
  blockTimestamp: number;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
}

interface RpcLog {
  address: Hex;
  topics: [Hex, ...Hex[]];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  logIndex: Hex;
}

/** Hex (addresses, hashes) lowercase as the API answers it; text such as names kept as mined. */
const normalize = (value: unknown): string | boolean =>
  typeof value === 'boolean'
    ? value
    : typeof value === 'string'
      ? /^0x[0-9a-fA-F]*$/.test(value)
        ? value.toLowerCase()
        : value
      : String(value);

/** Reads and decodes every relevant log in [fromBlock, head], head being the chain's latest block. */
export async function readChainView(
  client: PublicClient,
  contracts: { factory: string; graduator: string; stable: string },
  fromBlock: number,
): Promise<ChainView> {
  const headBlock = await client.getBlock({ blockTag: 'latest' });
  const head = Number(headBlock.number);
  const raw: RpcLog[] = [];
  // One request per 2,000 blocks keeps every answer small whatever the chain's length.
  for (let from = fromBlock; from <= head; from += 2_000) {
    const to = Math.min(head, from + 1_999);
    raw.push(
      ...((await client.request({
        method: 'eth_getLogs',
        params: [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}` }],
      })) as RpcLog[]),
    );
  }
  const factory = contracts.factory.toLowerCase();
  const decode = (abi: Abi, log: RpcLog) => decodeEventLog({ abi, topics: log.topics, data: log.data });
  // Tokens and pools are known from the factory's own events; a token's mint precedes its
  // launch event in the same transaction, so the sets are gathered before anything else is read.
  const tokens = new Set<string>();
  const pools = new Set<string>();
  for (const log of raw) {
    if (log.address.toLowerCase() !== factory) continue;
    const event = decode(launchFactoryAbi, log);
    const args = event.args as unknown as Record<string, unknown>;
    if (event.eventName === 'TokenLaunched') tokens.add(String(args.token).toLowerCase());
    if (event.eventName === 'Graduated') pools.add(String(args.pool).toLowerCase());
  }
  const timestamps = new Map<number, number>();
  const logs: ViewLog[] = [];
  for (const log of raw) {
    const address = log.address.toLowerCase();
    const abi: Abi | undefined =
      address === factory
        ? launchFactoryAbi
        : tokens.has(address)
          ? launchTokenAbi
          : pools.has(address)
            ? uniswapV3PoolAbi
            : undefined;
    if (!abi) continue;
    let event: ReturnType<typeof decode>;
    try {
      event = decode(abi, log);
    } catch {
      continue; // an event of these contracts the launchpad does not index (e.g. Approval, Mint)
    }
    if (!['TokenLaunched', 'Trade', 'Graduated', 'Transfer', 'Swap'].includes(event.eventName ?? ''))
      continue;
    const blockNumber = Number(log.blockNumber);
    timestamps.set(blockNumber, 0);
    logs.push({
      address,
      eventName: String(event.eventName),
      args: Object.fromEntries(
        Object.entries(event.args as unknown as Record<string, unknown>).map(([k, v]) => [k, normalize(v)]),
      ),
      blockNumber,
      blockHash: log.blockHash.toLowerCase(),
      blockTimestamp: 0,
      transactionHash: log.transactionHash.toLowerCase(),
      transactionIndex: Number(log.transactionIndex),
      logIndex: Number(log.logIndex),
    });
  }
  const numbers = [...timestamps.keys()];
  for (let i = 0; i < numbers.length; i += 25) {
    const blocks = await Promise.all(
      numbers.slice(i, i + 25).map((n) => client.getBlock({ blockNumber: BigInt(n) })),
    );
    for (const block of blocks) timestamps.set(Number(block.number), Number(block.timestamp));
  }
  for (const log of logs) log.blockTimestamp = timestamps.get(log.blockNumber) ?? 0;
  logs.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  return {
    factory,
    graduator: contracts.graduator.toLowerCase(),
    stable: contracts.stable.toLowerCase(),
    head: { number: head, timestamp: Number(headBlock.timestamp), hash: headBlock.hash.toLowerCase() },
    logs,
    payments: await readPayments(client, head),
  };
}

/** Every value transfer of blocks 0 … head, read block by block with its transactions. */
async function readPayments(client: PublicClient, head: number): Promise<Payment[]> {
  const payments: Payment[] = [];
  for (let from = 0; from <= head; from += 25) {
    const numbers = Array.from({ length: Math.min(25, head - from + 1) }, (_, i) => from + i);
    const blocks = await Promise.all(
      numbers.map((n) => client.getBlock({ blockNumber: BigInt(n), includeTransactions: true })),
    );
    for (const block of blocks)
      for (const tx of block.transactions)
        if (tx.to && tx.value > 0n)
          payments.push({
            blockNumber: Number(block.number),
            transactionIndex: Number(tx.transactionIndex),
            from: tx.from.toLowerCase(),
            to: tx.to.toLowerCase(),
          });
  }
  return payments;
}

/** The view as it stood when `head` was the latest block: its logs up to that block. */
export async function viewAt(client: PublicClient, view: ChainView, block: number): Promise<ChainView> {
  const head = await client.getBlock({ blockNumber: BigInt(block) });
  return {
    ...view,
    head: { number: block, timestamp: Number(head.timestamp), hash: head.hash.toLowerCase() },
    logs: view.logs.filter((log) => log.blockNumber <= block),
    payments: view.payments.filter((p) => p.blockNumber <= block),
  };
}
