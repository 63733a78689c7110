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
  /** The senders among them: a block where no wallet of the walk sent anything is skipped. */
  senders: Set<string>;
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

/**
 * Whether `buy.wallet` received native coin from the creator, directly or through at most
 * `hops` transfers (each from a wallet the one before funded, after it was funded), all in the
 * blocks `buy.block − windowBlocks` … `buy.block` and before the buy's transaction. `blockAt`
 * must answer for every block of that window.
 */
export function fundedBefore(
  buy: FirstBuy,
  params: FundingParams,
  blockAt: (n: number) => FundingBlock,
): boolean {
  if (params.fundingHops <= 0) return false;
  // The fewest hops each wallet was reached in so far, walking the window in chain order.
  const reached = new Map<string, number>([[buy.creator, 0]]);
  for (let n = windowStart(buy, params); n <= buy.block; n++) {
    const block = blockAt(n);
    let any = false;
    for (const wallet of reached.keys())
      if (block.senders.has(wallet)) {
        any = true;
        break;
      }
    if (!any) continue;
    for (const t of block.transfers) {
      if (n === buy.block && t.index >= buy.transactionIndex) break;
      const hops = reached.get(t.from);
      if (hops === undefined || hops >= params.fundingHops) continue;
      const before = reached.get(t.to);
      if (before === undefined || before > hops + 1) reached.set(t.to, hops + 1);
    }
  }
  return buy.wallet !== buy.creator && reached.has(buy.wallet);
}
