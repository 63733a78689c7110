import type { BatchPlan } from '../project/fold';
import {
  type FirstBuy,
  type FundingBlock,
  type FundingParams,
  firstBuysOf,
  fundedBefore,
  windowStart,
} from '../project/funding';
import type { RowView } from '../project/row-book';
import type { TraderRow } from '../project/traders';
import type { RpcClient } from '../rpc/client';
import { BlockUnavailableError, hex, RangeInconsistentError } from './headers';

/**
 * The blocks the funding check reads (project/funding.ts): the whole blocks, transactions
 * included (eth_getBlockByNumber with full transactions), of the window before each first buy of
 * a range, and nothing else. docs/decisions.md says why not traces, and what this costs.
 */

/** Blocks per JSON-RPC batch: a full block is far larger than a header. */
const BLOCK_BATCH = 50;
/** New blocks read before the first buys that need them are checked (memory: this plus a window). */
const CHUNK_BLOCKS = 500;

interface RawBlock {
  number: string;
  hash: string;
  parentHash: string;
  transactions: { from: string; to: string | null; value: string; transactionIndex: string }[];
}

function toFundingBlock(raw: RawBlock): FundingBlock {
  const transfers: FundingBlock['transfers'] = [];
  for (const tx of raw.transactions) {
    // A contract creation has no recipient; a transaction without value moved no coin.
    if (tx.to === null || BigInt(tx.value) === 0n) continue;
    transfers.push({
      from: tx.from.toLowerCase(),
      to: tx.to.toLowerCase(),
      index: Number.parseInt(tx.transactionIndex, 16),
    });
  }
  return {
    number: Number.parseInt(raw.number, 16),
    hash: raw.hash.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    transfers,
  };
}

/**
 * Reads and keeps the blocks of the funding windows. Kept blocks are checked again against the
 * chain each use: every window is read as an unbroken chain of parent hashes down from the
 * range's own header of the buy's block, so a window is of the range's fork or the read fails.
 */
export function createFundingReader(rpc: RpcClient) {
  const blocks = new Map<number, FundingBlock>();
  let read = 0;
  /** Blocks kept since the last takeNew(): what the write of the range being folded stores (store/). */
  let fresh = new Map<number, FundingBlock>();

  async function fetchBlocks(numbers: number[]): Promise<void> {
    const batches: number[][] = [];
    for (let i = 0; i < numbers.length; i += BLOCK_BATCH) batches.push(numbers.slice(i, i + BLOCK_BATCH));
    await Promise.all(
      batches.map(async (batch) => {
        const raws = await rpc.batch<RawBlock | null>(
          batch.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), true] })),
        );
        raws.forEach((raw, i) => {
          if (!raw) throw new BlockUnavailableError(`block ${batch[i]} is not available`);
          const block = toFundingBlock(raw);
          blocks.set(batch[i] as number, block);
          fresh.set(block.number, block);
        });
      }),
    );
    read += numbers.length;
  }

  /** The lowest block of [lo, hi] that does not chain down from `topHash`, or undefined. */
  function brokenAt(lo: number, hi: number, topHash: string): number | undefined {
    let expected = topHash;
    for (let n = hi; n >= lo; n--) {
      const block = blocks.get(n);
      if (block?.hash !== expected) return n;
      expected = block.parentHash;
    }
    return undefined;
  }

  /** Makes [lo, hi] present and chained down from the range's header of `hi`. */
  async function ensure(lo: number, hi: number, topHash: string): Promise<void> {
    const missing: number[] = [];
    for (let n = lo; n <= hi; n++) if (!blocks.has(n)) missing.push(n);
    if (missing.length > 0) await fetchBlocks(missing);
    const broken = brokenAt(lo, hi, topHash);
    if (broken === undefined) return;
    // Kept blocks of another fork (a reorg since they were read): read the rest of the window again.
    const again: number[] = [];
    for (let n = lo; n <= broken; n++) again.push(n);
    await fetchBlocks(again);
    if (brokenAt(lo, hi, topHash) !== undefined)
      throw new RangeInconsistentError(`blocks ${lo}–${hi} changed while the funding window was read`);
  }

  return {
    /** Blocks read so far (each a full eth_getBlockByNumber): the check's RPC cost. */
    get blocksRead() {
      return read;
    },

    /**
     * The range's first buys whose wallet the creator funded (`${token} ${wallet}` keys), for
     * applyTraderOps' `fundedAtFirstBuy`. Reads no block when FUNDING_HOPS is 0 or the range
     * has no first buy.
     */
    async funded(plan: BatchPlan, stored: RowView<TraderRow>, params: FundingParams): Promise<Set<string>> {
      const funded = new Set<string>();
      if (params.fundingHops <= 0) return funded;
      const buys = firstBuysOf(plan, stored).sort(
        (a, b) => a.block - b.block || a.transactionIndex - b.transactionIndex,
      );
      if (buys.length === 0) return funded;
      const headers = new Map(plan.headers.map((h) => [h.number, h.hash]));
      const blockAt = (n: number) => blocks.get(n) as FundingBlock;
      for (let i = 0; i < buys.length; ) {
        // A chunk of buys in block order whose windows bring at most CHUNK_BLOCKS new blocks.
        const chunk: FirstBuy[] = [];
        let fresh = 0;
        let top = -1;
        while (i < buys.length && (chunk.length === 0 || fresh < CHUNK_BLOCKS)) {
          const buy = buys[i++] as FirstBuy;
          for (let n = Math.max(windowStart(buy, params), top + 1); n <= buy.block; n++)
            if (!blocks.has(n)) fresh++;
          top = Math.max(top, buy.block);
          chunk.push(buy);
        }
        // Each window, as contiguous runs: a run ends at a buy's block, whose header the range has.
        for (let j = chunk.length - 1; j >= 0; ) {
          const hi = (chunk[j] as FirstBuy).block;
          let lo = windowStart(chunk[j] as FirstBuy, params);
          while (j > 0 && (chunk[j - 1] as FirstBuy).block >= lo - 1)
            lo = Math.min(lo, windowStart(chunk[--j] as FirstBuy, params));
          j--;
          const hash = headers.get(hi);
          if (hash === undefined) throw new Error(`the range has no header of block ${hi}, where a buy is`);
          await ensure(lo, hi, hash);
        }
        for (const buy of chunk)
          if (fundedBefore(buy, params, blockAt)) funded.add(`${buy.token} ${buy.wallet}`);
        // Later buys are in later blocks: their windows start at or above this one's.
        const floor = windowStart(chunk.at(-1) as FirstBuy, params);
        for (const n of blocks.keys()) if (n < floor) blocks.delete(n);
      }
      return funded;
    },

    /**
     * Blocks stored with earlier writes (a rebuild's replay): kept as if read, and checked like
     * read ones (a window must chain down from the range's header, or it is read again).
     */
    preload(stored: readonly FundingBlock[]) {
      for (const block of stored) {
        blocks.set(block.number, block);
        fresh.set(block.number, block);
      }
    },

    /** The blocks kept since the last call, for the write of the range just folded to store. */
    takeNew(): FundingBlock[] {
      const taken = [...fresh.values()];
      fresh = new Map();
      return taken;
    },

    /**
     * Every kept block counts as new again: the writes that were to store some of them did not
     * commit (a failure or a reorg stopped the pipeline), so the next one stores them.
     */
    unstored() {
      fresh = new Map(blocks);
    },

    /** Forgets every kept block. */
    clear() {
      blocks.clear();
      fresh = new Map();
    },
  };
}
export type FundingReader = ReturnType<typeof createFundingReader>;
