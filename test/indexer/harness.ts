import { sql } from 'drizzle-orm';
import type { ChainConfig } from '../../server/config';
import { type Database, selectRows } from '../../server/db/client';
import type { RawLog } from '../../server/indexer/decode/events';
import { createIndexer, type IndexerLogger } from '../../server/indexer/indexer';
import type { ProjectionContext } from '../../server/indexer/project/fold';
import { createRpcClient, type RpcClient, type RpcClientOptions } from '../../server/indexer/rpc/client';
import { decodeChunk } from '../../server/indexer/store/log-chunk';
import type { TestChain } from '../chain';
import { type Backend, createTestDatabase } from '../database';

export const silentLogger: IndexerLogger = { info: () => {}, warn: () => {}, error: () => {} };

export function chainConfigFor(chain: TestChain, overrides: Partial<ChainConfig> = {}): ChainConfig {
  return {
    rpcUrl: chain.anvil.rpcUrl,
    chainId: 31337,
    factoryAddress: chain.deployment.contracts.factory,
    startBlock: BigInt(chain.deployment.startBlock),
    finalityDepth: 64,
    maxRange: 50_000,
    pollIntervalMs: 50,
    // Tokens of a test chain make a few dozen holder rows: segments of 4 make their balance
    // history start segments (and cut wallets the range did not move) all the time.
    historySegmentMinEvents: 4,
    ...overrides,
  };
}

/** The context loadProjectionContext (../context.ts) reads for `chain`, taken from its deployment instead. */
export function projectionContextFor(chain: TestChain): ProjectionContext {
  return {
    chainId: 31337,
    factory: chain.deployment.contracts.factory.toLowerCase(),
    graduator: chain.deployment.contracts.graduator.toLowerCase(),
    stable: chain.deployment.contracts.stable.toLowerCase(),
    startBlock: chain.deployment.startBlock,
    finalityDepth: 64,
    historySegmentMinEvents: 4,
  };
}

/** Indexes `chain` into `db` until the checkpoint reaches the head. */
export async function indexToHead(
  db: Database,
  chain: TestChain,
  options: {
    rpc?: Partial<RpcClientOptions>;
    /** Instead of a client made from `rpc`. */
    client?: RpcClient;
    chain?: Partial<ChainConfig>;
    initialRange?: number;
    streamedPartEvents?: number;
    rangeSlices?: number;
    cachedBalances?: number;
  } = {},
) {
  const config = chainConfigFor(chain, options.chain);
  const indexer = createIndexer({
    db,
    rpc: options.client ?? createRpcClient({ url: config.rpcUrl, ...options.rpc }),
    chain: config,
    logger: silentLogger,
    initialRange: options.initialRange,
    streamedPartEvents: options.streamedPartEvents,
    rangeSlices: options.rangeSlices,
    cachedBalances: options.cachedBalances,
  });
  await indexer.syncToHead();
  return indexer;
}

/**
 * What an index from scratch starts from: every chain-derived table and the indexer's own
 * bookkeeping emptied (drafts, objects and other off-chain rows stay). One list, beside the dump
 * above, so that a new projection cannot be left out of one test's reset.
 */
export async function clearIndex(db: Database): Promise<void> {
  await db.execute(sql`truncate indexer_checkpoint, recent_blocks, tokens, token_search_terms, trades,
    chain_events, balances, balance_history, candles, creators, traders, trader_totals, projection_writes,
    projection_journal, index_changes, raw_log_chunks`);
}

/**
 * Every chain-derived table, rows sorted, values as text: two databases holding the same
 * projections dump identically. Bookkeeping (recent block hashes, timestamps of writes) is left
 * out; the checkpoint's block and hash are in.
 */
export async function dumpProjections(db: Database): Promise<Record<string, unknown[]>> {
  const tables: Record<string, string> = {
    tokens: 'select * from tokens order by address',
    token_search_terms: 'select * from token_search_terms order by token_address, term, kind',
    trades: 'select * from trades order by block_number, log_index',
    chain_events: 'select * from chain_events order by block_number, log_index',
    balances: 'select * from balances order by token_address, wallet',
    balance_history: 'select * from balance_history order by token_address, wallet, from_block',
    candles: 'select * from candles order by token_address, interval_seconds, bucket_start',
    creators: 'select * from creators order by address',
    traders: 'select * from traders order by token_address, wallet',
    trader_totals: 'select * from trader_totals order by token_address',
    checkpoint:
      'select indexed_through_block, block_hash, block_timestamp, balance_history_from_block from indexer_checkpoint',
  };
  const dump: Record<string, unknown[]> = {};
  for (const [name, query] of Object.entries(tables)) {
    const rows = await selectRows<Record<string, unknown>>(db, sql.raw(query));
    dump[name] = rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [
          k,
          v === null ? null : typeof v === 'object' ? JSON.stringify(v) : String(v),
        ]),
      ),
    );
  }
  return dump;
}

/**
 * The event store of `db` read back: every stored log in chain order (its block hash from the
 * chunk's header), and the chunks' block ranges in order. `contiguous` says whether the chunks
 * follow each other block for block from the first to the last.
 */
export async function dumpStoredLogs(db: Database): Promise<{
  logs: RawLog[];
  chunks: [from: number, to: number][];
  contiguous: boolean;
}> {
  const rows = await selectRows<{
    from_block: string | number;
    to_block: string | number;
    logs: number;
    body: Uint8Array;
  }>(db, sql`select from_block, to_block, logs, body from raw_log_chunks order by from_block`);
  const logs: RawLog[] = [];
  const chunks: [number, number][] = [];
  for (const row of rows) {
    const decoded = decodeChunk(row.body);
    if (decoded.logs.length !== row.logs)
      throw new Error(`chunk ${row.from_block} says ${row.logs} logs, holds ${decoded.logs.length}`);
    for (const [log] of decoded.logs) logs.push(log);
    chunks.push([Number(row.from_block), Number(row.to_block)]);
  }
  const contiguous = chunks.every(
    ([from], i) => i === 0 || from === (chunks[i - 1] as [number, number])[1] + 1,
  );
  return { logs, chunks, contiguous };
}

/**
 * {@link dumpProjections} and the event store: its logs, and the blocks its chunks span, which
 * must follow each other without a gap or an overlap.
 */
export async function dumpIndexAndLogs(db: Database): Promise<Record<string, unknown[]>> {
  const stored = await dumpStoredLogs(db);
  if (!stored.contiguous)
    throw new Error(`stored log chunks not contiguous: ${JSON.stringify(stored.chunks)}`);
  return {
    ...(await dumpProjections(db)),
    stored_logs: stored.logs,
    stored_span: [stored.chunks[0]?.[0], stored.chunks.at(-1)?.[1]],
  };
}

/**
 * Runs `body` with two fresh, open databases of `backend` (typically a reference index and the
 * one under test) and drops both afterwards, whatever happened.
 */
export async function withTwoDatabases(
  backend: Backend | undefined,
  body: (a: { db: Database }, b: { db: Database }) => Promise<void>,
): Promise<void> {
  if (!backend) throw new Error('no backend');
  const first = await createTestDatabase(backend);
  const second = await createTestDatabase(backend);
  const a = await first.open();
  const b = await second.open();
  try {
    await body(a, b);
  } finally {
    await a.close();
    await b.close();
    await first.drop();
    await second.drop();
  }
}
