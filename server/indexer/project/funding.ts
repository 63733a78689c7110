import type { BatchPlan } from './fold';
import type { RowView } from './row-book';
import type { LabelParams, TraderRow } from './traders';

/**
 * "Funded by the creator" (docs/api.md "Traders, PnL and labels"), pure: which first buys of a
 * range to check, and the check itself over the native transfers of the blocks before each.
 * The transfers are read by sync/funding-blocks.ts.
 */

export type FundingParams = Pick<LabelParams, 'fundingHops' | 'fundingWindowBlocks'>;

/** A transaction that moved native coin (value > 0) from its sender to its recipient. */
export interface NativeTransfer {
  from: string;
  to: string;
  /** The transaction's index in its block. */
  index: number;
}

/** What the check reads of a block: its place in the chain and its native transfers. */
export interface FundingBlock {
  number: number;
  hash: string;
  parentHash: string;
  /** In block order. */
  transfers: NativeTransfer[];
}

/** A wallet's first buy of a token, which the label is decided at. */
export interface FirstBuy {
  token: string;
  wallet: string;
  creator: string;
  block: number;
  transactionIndex: number;
}

/**
 * The range's buys that may be a wallet's first of the token (the creator's aside): the first
 * buy of each (token, wallet) in the range whose stored row has no buy. The fold asks about
 * exactly these (applyTraderOps, at a row's first buy), in chain order.
 */
export function firstBuysOf(plan: BatchPlan, stored: RowView<TraderRow>): FirstBuy[] {
  const launched = new Set(plan.launches.map(({ event }) => event.token));
  const seen = new Set<string>();
  const found: FirstBuy[] = [];
  for (const op of plan.traderOps) {
    if (op.kind !== 'buy') continue;
    const creator = plan.states.get(op.token)?.creator;
    if (creator === undefined || op.wallet === creator) continue;
    const key = `${op.token} ${op.wallet}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!launched.has(op.token) && (stored.get(op.token, op.wallet)?.buys ?? 0) > 0) continue;
    found.push({
      token: op.token,
      wallet: op.wallet,
      creator,
      block: op.block,
      transactionIndex: op.transactionIndex,
    });
  }
  return found;
}

/** The first block of a buy's window. */
export const windowStart = (buy: FirstBuy, params: FundingParams) =>
  Math.max(0, buy.block - params.fundingWindowBlocks);

/** Each block's transfers by recipient, in block order: made once per block, when first asked. */
const incomingByBlock = new WeakMap<FundingBlock, Map<string, NativeTransfer[]>>();

function incoming(block: FundingBlock): Map<string, NativeTransfer[]> {
  let byRecipient = incomingByBlock.get(block);
  if (!byRecipient) {
    byRecipient = new Map();
    for (const t of block.transfers) {
      const list = byRecipient.get(t.to);
      if (list) list.push(t);
      else byRecipient.set(t.to, [t]);
    }
    incomingByBlock.set(block, byRecipient);
  }
  return byRecipient;
}

/**
 * Whether `buy.wallet` received native coin from the creator, directly or through at most
 * `hops` transfers (each from a wallet the one before funded, after it was funded), all in the
 * blocks `buy.block − windowBlocks` … `buy.block` and before the buy's transaction. `blockAt`
 * must answer for every block of that window.
 *
 * Searched backwards from the buyer, through the transfers each wallet received before it passed
 * coin on: the cost follows the buyer's few senders. A walk forwards from the creator followed
 * everything the creator funded, for every buy: a creator who funded 10,000 wallets that all
 * bought made the range's check take minutes (quadratic), holding up the indexer.
 */
export function fundedBefore(
  buy: FirstBuy,
  params: FundingParams,
  blockAt: (n: number) => FundingBlock,
): boolean {
  if (params.fundingHops <= 0 || buy.wallet === buy.creator) return false;
  const start = windowStart(buy, params);
  // Per wallet and hops left, the latest place it was found unreachable before: a search before
  // an earlier place finds nothing either (reaching a wallet only grows as the chain goes on).
  const unreachable = new Map<string, { block: number; index: number }>();
  /** Whether `wallet` was reached in at most `hops` transfers, the last before (block, index). */
  const reached = (wallet: string, hops: number, block: number, index: number): boolean => {
    const key = `${hops} ${wallet}`;
    const known = unreachable.get(key);
    if (known && (block < known.block || (block === known.block && index <= known.index))) return false;
    for (let n = block; n >= start; n--) {
      const received = incoming(blockAt(n)).get(wallet);
      if (!received) continue;
      for (let i = received.length - 1; i >= 0; i--) {
        const t = received[i] as NativeTransfer;
        if (n === block && t.index >= index) continue;
        if (t.from === buy.creator) return true;
        if (hops > 1 && reached(t.from, hops - 1, n, t.index)) return true;
      }
    }
    unreachable.set(key, { block, index });
    return false;
  };
  return reached(buy.wallet, params.fundingHops, buy.block, buy.transactionIndex);
}
