import { balanceKind } from '../../db/schema';
import type { StoredBalance } from './balance-book';

/**
 * Balance history, folded per token (docs/indexer.md, "Balance history"). Pure: a range's net
 * balance moves per (wallet, block) in, the `balances` rows after it and the intervals it closed
 * (`balance_history` COPY lines) out.
 *
 * A (token, wallet)'s balance is a run of intervals: the open one is its `balances` row (opened at
 * `since_block`), each closed one a `balance_history` row [from_block, to_block). A block that
 * moves the balance (or, for a pool at its graduation, the kind) closes the open interval there
 * and opens the next; a balance reaching zero opens none.
 *
 * Segments: a token's history is cut at segment starts S, where every interval open across S is
 * closed at S and continues from S, so that the intervals of one segment, walked in balance order,
 * hold the holders at any block of it with few others between them. A segment starts at the end
 * of the block in which the previous one has opened or closed as many holder rows as it had
 * holders when it started, and at least `minimum` (HISTORY_SEGMENT_MIN_EVENTS): a rule of the
 * chain's blocks alone, so an index built in other ranges (from scratch, after a reorg) cuts at
 * the same blocks.
 * A wallet that does not move in a range keeps its stored row; its cuts at the range's segment
 * starts are written from `balances` (write-balances.ts), since the fold never sees it.
 */

/**
 * One (token, wallet)'s moves in a range: the net change of each block, blocks ascending; the
 * first inline, any later ones as pairs (`[block, delta, …]`). A range moves ~100k wallets, most
 * of them in one block: one small object each is what the collector can afford.
 */
export interface BalanceSteps {
  block: number;
  delta: bigint;
  later: (number | bigint)[] | undefined;
}

const noLaterSteps: readonly (number | bigint)[] = [];

/** The steps of a first move of `delta` in `block`. */
export const firstStep = (block: number, delta: bigint): BalanceSteps => ({ block, delta, later: undefined });

/** Records a move of `delta` in `block` (no earlier than the last one recorded). */
export function addStep(steps: BalanceSteps, block: number, delta: bigint): void {
  const { later } = steps;
  if (later === undefined) {
    if (steps.block === block) steps.delta += delta;
    else steps.later = [block, delta];
  } else if (later[later.length - 2] === block)
    later[later.length - 1] = (later[later.length - 1] as bigint) + delta;
  else later.push(block, delta);
}

/** A (token, wallet) the range moved: its stored row before (null: none) and the row after. */
export interface BalanceChange {
  token: string;
  wallet: string;
  before: StoredBalance | null;
  /** 0: no row after the range. */
  after: bigint;
  kind: number;
  /** The block of the row's last change (its `since_block`). */
  since: number;
}

/** The part of a token's state the history keeps (TokenState's fields of the same names). */
export interface HistoryState {
  holders: number;
  historySegment: number;
  historyCountdown: number;
}

export interface TokenHistory {
  changes: BalanceChange[];
  /** Closed intervals as `balance_history` COPY lines, in the schema's column order. */
  lines: string[];
  /** Blocks at which segments started in the range, ascending. */
  splits: number[];
  /** The segment the range started in. */
  segmentBefore: number;
}

/**
 * Folds one token's moves of a range onto its stored rows; `state` (the token's post-range state)
 * is advanced: holders, segment and countdown. `kindAt` classifies a wallet at a block.
 */
export function foldTokenHistory(
  token: string,
  wallets: ReadonlyMap<string, BalanceSteps>,
  stored: (wallet: string) => StoredBalance | null,
  kindAt: (wallet: string, block: number) => number,
  state: HistoryState,
  minimum: number,
): TokenHistory {
  const start = state.historySegment;
  const fold = (splits: readonly number[], lines?: string[], perBlock?: Map<number, BlockEvents>) => {
    const walk: Walk = { token, start, splits, lines, perBlock, kindAt, events: 0, holders: 0 };
    const changes: BalanceChange[] = [];
    for (const [wallet, steps] of wallets) changes.push(walkWallet(walk, wallet, stored(wallet), steps));
    return { changes, events: walk.events, holders: walk.holders, lines: lines ?? [] };
  };
  // Each move opens a holder row and closes one at most: fewer moves than half the countdown
  // cannot start a segment, and the range folds once.
  let moves = 0;
  for (const steps of wallets.values()) moves += 1 + (steps.later?.length ?? 0) / 2;
  if (2 * moves < state.historyCountdown) {
    const folded = fold([], []);
    state.historyCountdown -= folded.events;
    state.holders += folded.holders;
    return { changes: folded.changes, lines: folded.lines, splits: [], segmentBefore: start };
  }
  // It may: count what each block does, find where segments start, and fold cutting there.
  const perBlock = new Map<number, BlockEvents>();
  fold([], undefined, perBlock);
  const splits: number[] = [];
  let countdown = state.historyCountdown;
  let holders = state.holders;
  for (const block of [...perBlock.keys()].sort((a, b) => a - b)) {
    const moved = perBlock.get(block) as BlockEvents;
    countdown -= moved.events;
    holders += moved.holders;
    if (countdown <= 0) {
      splits.push(block);
      countdown = Math.max(minimum, holders);
    }
  }
  const folded = fold(splits, []);
  state.historySegment = splits.at(-1) ?? start;
  state.historyCountdown = countdown;
  state.holders = holders;
  return { changes: folded.changes, lines: folded.lines, splits, segmentBefore: start };
}

interface BlockEvents {
  /** Holder rows opened plus holder rows closed. */
  events: number;
  /** Holders gained minus holders lost. */
  holders: number;
}

/** One pass over a token's wallets: where it cuts, where lines and block counts go, its totals. */
interface Walk {
  token: string;
  start: number;
  splits: readonly number[];
  lines: string[] | undefined;
  perBlock: Map<number, BlockEvents> | undefined;
  kindAt: (wallet: string, block: number) => number;
  events: number;
  holders: number;
}

/**
 * One wallet's moves, cut at the walk's splits: its row after them, with what it did to the
 * token's holders added to the walk's totals and its closed intervals to `lines`. A wallet whose
 * moves cancel out within each block moved nothing: it writes no lines, and its cuts are written
 * from `balances` with the untouched wallets'. One that moved and came back moved: its row
 * reopens at its last move (`since`), though its balance and kind are what they were.
 * (No closures: this runs once per wallet a range moves.)
 */
function walkWallet(
  walk: Walk,
  wallet: string,
  before: StoredBalance | null,
  steps: BalanceSteps,
): BalanceChange {
  const { splits, lines, start } = walk;
  let balance = before?.balance ?? 0n;
  let kind = before?.kind ?? balanceKind.holder;
  let since = before?.since ?? 0;
  // Where the open interval starts: cut by every segment start since its last change.
  let from = Math.max(since, start);
  let moved = false;
  const mark = lines?.length ?? 0;
  let next = 0;
  const later = steps.later ?? noLaterSteps;
  for (let i = -2; i <= later.length; i += 2) {
    // A segment starting at this very block cuts after the wallet's own move here, if any.
    const block = i < 0 ? steps.block : i < later.length ? (later[i] as number) : Number.POSITIVE_INFINITY;
    for (; next < splits.length && (splits[next] as number) < block; next++) {
      const cut = splits[next] as number;
      if (balance > 0n && from < cut) {
        lines?.push(intervalLine(walk, wallet, from, cut, balance, kind));
        from = cut;
      }
    }
    if (i === later.length) break;
    const after = balance + (i < 0 ? steps.delta : (later[i + 1] as bigint));
    const afterKind = walk.kindAt(wallet, block);
    if (after === balance && afterKind === kind) continue;
    const was = balance > 0n && kind === balanceKind.holder ? 1 : 0;
    const is = after > 0n && afterKind === balanceKind.holder ? 1 : 0;
    if (balance > 0n) lines?.push(intervalLine(walk, wallet, from, block, balance, kind));
    if (was + is > 0) {
      walk.events += was + is;
      walk.holders += is - was;
      const counted = walk.perBlock?.get(block);
      if (counted) {
        counted.events += was + is;
        counted.holders += is - was;
      } else walk.perBlock?.set(block, { events: was + is, holders: is - was });
    }
    balance = after;
    kind = afterKind;
    since = block;
    from = block;
    moved = true;
  }
  if (!moved && lines) lines.length = mark;
  return { token: walk.token, wallet, before, after: balance, kind, since };
}

/** A closed interval [from, to) as a `balance_history` COPY line, in the segment holding `from`. */
function intervalLine(walk: Walk, wallet: string, from: number, to: number, balance: bigint, kind: number) {
  let segment = walk.start;
  for (const split of walk.splits) {
    if (split > from) break;
    segment = split;
  }
  return `${walk.token}\t${wallet}\t${from}\t${to}\t${balance}\t${kind}\t${segment}`;
}
