import { balanceKind, candleIntervals, HISTORY_SEGMENT_MIN_EVENTS } from '../../db/schema';
import type { DecodedEvent, DecodedEventOf } from '../decode/events';
import { type BlockHeader, type RangeData, tokenOfPool } from '../sync/range-algebra';
import type { BalanceView } from './balance-book';
import {
  addStep,
  type BalanceChange,
  type BalanceSteps,
  firstStep,
  foldTokenHistory,
} from './balance-history';
import { copyEscape, eventDataJson, lineBlocks, provenanceText } from './copy-text';
import {
  applyCurveTrade,
  applyGraduation,
  applySwap,
  BURN_ADDRESS,
  bucketStart,
  type Candle,
  type TokenState,
  type TradeRow,
  tokenFromLaunch,
  ZERO_ADDRESS,
} from './state';
import { type LabelParams, type TraderOp, type TraderRow, transferOps } from './traders';

/** Addresses the projection classifies and the chain facts it needs beyond the logs. */
export interface ProjectionContext {
  chainId: number;
  factory: string;
  graduator: string;
  stable: string;
  startBlock: number;
  finalityDepth: number;
  /** Trader label parameters (defaultLabelParams when absent). */
  labels?: LabelParams;
  /** The fewest holder rows a balance history segment takes (HISTORY_SEGMENT_MIN_EVENTS when absent). */
  historySegmentMinEvents?: number;
  /**
   * The sort indexes of `traders` are deferred (a backfill: db/deferred-indexes.ts), so new rows
   * need not arrive in their order.
   */
  traderIndexesDeferred?: boolean;
}

export interface CreatorDelta {
  launched: number;
  graduated: number;
  volume: bigint;
  /** Earliest and latest launch timestamps in the range (MAX_SAFE_INTEGER / 0 when none). */
  first: number;
  last: number;
}

/**
 * Everything one range changes, computed without the database: rows to append (as COPY text
 * lines, built here so that the CPU work overlaps the previous range's write), deltas to fold
 * onto stored aggregates, and the post-range state of every token the range touched.
 */
export interface BatchPlan {
  from: number;
  to: number;
  /** Header of the range's first block (its parent must be the indexed head) and of its last. */
  first: BlockHeader | undefined;
  head: BlockHeader;
  headers: BlockHeader[];
  events: number;
  launches: { event: DecodedEventOf<'launch'>; createdAt: number }[];
  /** Post-range state of every token the range touched, new launches included. */
  states: Map<string, TokenState>;
  /** Tokens that existed before the range and changed in it (their rows are updated). */
  updated: string[];
  /**
   * `trades` / `chain_events` rows in COPY text format, one line each, joined by newlines in
   * blocks of up to LINES_PER_BLOCK (copy-text.ts; copyLines takes them as they are).
   */
  tradeLines: string[];
  eventLines: string[];
  /**
   * Every (token, wallet) the range's Transfers move: the stored row before the range (null:
   * none) and the row after (balance-history.ts).
   */
  balances: BalanceChange[];
  /** The balance intervals the range closed, as `balance_history` COPY lines (blocks of lines, as tradeLines). */
  historyLines: string[];
  /** Tokens whose history started segments in the range: where it was, and the new starts (balance-history.ts). */
  historySplits: { token: string; from: number; blocks: number[] }[];
  /** This range's trades aggregated per bucket; merged onto stored candles by the writer. */
  candles: Candle[];
  creators: Map<string, CreatorDelta>;
  tradedTokens: string[];
  newPools: { pool: string; token: string }[];
  /** What each (token, wallet) did, in chain order (empty when `traders` is not kept). */
  traderOps: TraderOp[];
  /** Every `traders` row the ops touch, before (null: none) and after; set by foldTraders (trader-book.ts). */
  traders: TraderChange[];
  /** Whether the new trader rows are written in the sort indexes' order (not while they are deferred). */
  tradersInIndexOrder: boolean;
  /**
   * The range's raw logs and headers as one event-store chunk (store/log-chunk.ts), stored by the
   * write, or the schema whose stored chunks are exactly the range's (a rebuild's replay: the
   * write copies them); set beside the fold by whoever folds (store/stored-logs.ts, `logChunkOf`).
   */
  rawLogs?: Uint8Array | { copyFrom: string };
}

export interface TraderChange {
  before: TraderRow | null;
  after: TraderRow;
}

export type { BalanceChange } from './balance-history';

const intervals = Object.values(candleIntervals);
/** Tokens that existed before the range and that it touches: the states the fold needs. */
export function touchedTokens(range: RangeData): string[] {
  const launched = new Set<string>();
  for (const event of range.events) if (event.type === 'launch') launched.add(event.token);
  const touched = new Set<string>();
  // Events of one token come in runs (a trade's Transfer follows it): each run adds it once.
  let last: string | undefined;
  for (const event of range.events) {
    const token =
      event.type === 'swap'
        ? tokenOfPool(range, event.pool)
        : event.type === 'launch'
          ? undefined
          : event.token;
    if (token === last) continue;
    last = token;
    if (token && !launched.has(token)) touched.add(token);
  }
  return [...touched];
}

/**
 * Folds one range onto the states of the tokens it touches. Pure: `states` (the pre-range state
 * of at least every token {@link touchedTokens} names) is not modified; touched states are
 * copied into the plan. `stored` answers for every (token, wallet) the range's Transfers move,
 * except those of tokens launched in the range (they have no rows yet).
 */
export function foldRange(
  range: RangeData,
  context: ProjectionContext,
  states: ReadonlyMap<string, TokenState>,
  stored: BalanceView,
): BatchPlan {
  const headOf = (n: number): BlockHeader => {
    const header = range.headers.get(n);
    if (!header) throw new Error(`missing header for block ${n}`);
    return header;
  };
  const plan: BatchPlan = {
    from: range.from,
    to: range.to,
    first: range.headers.get(range.from),
    head: headOf(range.to),
    headers: [...range.headers.values()],
    events: range.events.length,
    launches: [],
    states: new Map(),
    updated: [],
    tradeLines: [],
    eventLines: [],
    balances: [],
    historyLines: [],
    historySplits: [],
    candles: [],
    creators: new Map(),
    tradedTokens: [],
    newPools: [],
    traderOps: [],
    traders: [],
    tradersInIndexOrder: context.traderIndexesDeferred !== true,
  };
  const pushOp = (op: TraderOp) => plan.traderOps.push(op);
  const segmentMin = context.historySegmentMinEvents ?? HISTORY_SEGMENT_MIN_EVENTS;
  // Per token, its last Transfer between a market and a wallet: the op it pushed.
  const legs = new Map<string, { index: number; transaction: string }>();
  // Mints come from the zero address; burn and launchpad addresses are not wallets.
  const contracts = new Set([ZERO_ADDRESS, BURN_ADDRESS, context.graduator, context.factory]);
  const stateOf = (address: string | undefined): TokenState | undefined => {
    if (address === undefined) return undefined;
    let state = plan.states.get(address);
    if (state) return state;
    const before = states.get(address);
    if (!before) return undefined;
    state = { ...before };
    plan.states.set(address, state);
    plan.updated.push(address);
    return state;
  };
  const creatorDelta = (creator: string) => {
    let delta = plan.creators.get(creator);
    if (!delta) {
      delta = { launched: 0, graduated: 0, volume: 0n, first: Number.MAX_SAFE_INTEGER, last: 0 };
      plan.creators.set(creator, delta);
    }
    return delta;
  };
  const balanceSteps = new Map<string, Map<string, BalanceSteps>>();
  const addBalance = (token: string, wallet: string, block: number, delta: bigint) => {
    let wallets = balanceSteps.get(token);
    if (!wallets) {
      wallets = new Map();
      balanceSteps.set(token, wallets);
    }
    const steps = wallets.get(wallet);
    if (steps) addStep(steps, block, delta);
    else wallets.set(wallet, firstStep(block, delta));
  };
  // Trades arrive in chain order, so each (token, interval) only ever extends its latest bucket.
  const openCandles = new Map<string, Candle[]>();
  const traded = new Set<string>();

  const tradeLines = lineBlocks();
  const eventLines = lineBlocks();
  const addTrade = (token: TokenState, row: TradeRow, event: DecodedEvent, timestamp: number) => {
    tradeLines.push(
      `${provenanceText(event, timestamp)}\t${row.tokenAddress}\t${row.trader}\t${row.side}\t${row.source}\t${row.tokenAmount}\t${row.reserveAmount}\t${row.curveValue}\t${row.protocolFee}\t${row.creatorFee}\t${row.price}`,
    );
    traded.add(row.tokenAddress);
    // The trade's token leg came just before its log, in its transaction (the contracts send the
    // tokens first): the trade takes its place and its wallet (a pool sell's payer, not the
    // swap's recipient). A swap that moved no tokens has none: it stays its recipient's.
    const leg = legs.get(row.tokenAddress);
    legs.delete(row.tokenAddress);
    const legOp = leg?.transaction === event.transactionHash ? plan.traderOps[leg.index] : undefined;
    const onLeg =
      leg !== undefined &&
      legOp?.kind === (row.side === 'buy' ? 'in' : 'out') &&
      legOp.tokens === row.tokenAmount;
    const op: TraderOp = {
      kind: row.side,
      token: row.tokenAddress,
      wallet: onLeg ? legOp.wallet : row.trader,
      tokens: row.tokenAmount,
      // The trader's side: gross paid on a buy, net received on a sell (equal on the pool).
      quote: row.side === 'buy' ? row.reserveAmount : row.curveValue,
      block: event.blockNumber,
      timestamp,
      transaction: event.transactionHash,
      transactionIndex: event.transactionIndex,
    };
    if (onLeg) plan.traderOps[leg.index] = op;
    else plan.traderOps.push(op);
    creatorDelta(token.creator).volume += row.reserveAmount;
    let current = openCandles.get(row.tokenAddress);
    if (!current) {
      current = [];
      openCandles.set(row.tokenAddress, current);
    }
    for (let i = 0; i < intervals.length; i++) {
      const intervalSeconds = intervals[i] as number;
      const start = bucketStart(timestamp, intervalSeconds);
      const candle = current[i];
      if (candle && candle.bucketStart === start) {
        if (row.price > candle.high) candle.high = row.price;
        if (row.price < candle.low) candle.low = row.price;
        candle.close = row.price;
        candle.volume += row.reserveAmount;
        candle.trades += 1;
        candle.lastBlockNumber = event.blockNumber;
        candle.lastLogIndex = event.logIndex;
      } else {
        const fresh: Candle = {
          tokenAddress: row.tokenAddress,
          intervalSeconds,
          bucketStart: start,
          open: row.price,
          high: row.price,
          low: row.price,
          close: row.price,
          volume: row.reserveAmount,
          trades: 1,
          lastBlockNumber: event.blockNumber,
          lastLogIndex: event.logIndex,
        };
        current[i] = fresh;
        plan.candles.push(fresh);
      }
    }
  };

  // The token's constructor mints to the curve before the factory emits TokenLaunched, so
  // launches must be known before their own transaction's earlier logs are folded.
  for (const event of range.events) {
    if (event.type !== 'launch') continue;
    plan.states.set(event.token, { ...tokenFromLaunch(event), historyCountdown: segmentMin });
    plan.launches.push({ event, createdAt: headOf(event.blockNumber).timestamp });
  }

  let timestampBlock = -1;
  let timestamp = 0;
  for (const event of range.events) {
    if (event.blockNumber !== timestampBlock) {
      timestampBlock = event.blockNumber;
      timestamp = headOf(event.blockNumber).timestamp;
    }
    let tokenAddress: string;
    if (event.type === 'launch') {
      const delta = creatorDelta(event.creator);
      delta.launched += 1;
      delta.first = Math.min(delta.first, timestamp);
      delta.last = Math.max(delta.last, timestamp);
      tokenAddress = event.token;
    } else if (event.type === 'trade') {
      const state = stateOf(event.token);
      if (!state) continue;
      addTrade(state, applyCurveTrade(state, event, timestamp), event, timestamp);
      tokenAddress = event.token;
    } else if (event.type === 'graduation') {
      const state = stateOf(event.token);
      if (!state) continue;
      applyGraduation(state, event, timestamp);
      // The pool's row turns from a holder's into the pool's here, whatever moved it.
      addBalance(event.token, event.pool, event.blockNumber, 0n);
      creatorDelta(state.creator).graduated += 1;
      plan.newPools.push({ pool: event.pool, token: event.token });
      tokenAddress = event.token;
    } else if (event.type === 'transfer') {
      const state = stateOf(event.token);
      if (!state) continue;
      if (transferOps({ curve: state.curve, pool: state.poolAddress, contracts }, event, pushOp))
        legs.set(event.token, { index: plan.traderOps.length - 1, transaction: event.transactionHash });
      if (event.from !== ZERO_ADDRESS) addBalance(event.token, event.from, event.blockNumber, -event.value);
      addBalance(event.token, event.to, event.blockNumber, event.value);
      tokenAddress = event.token;
    } else {
      const state = stateOf(tokenOfPool(range, event.pool));
      if (!state) continue;
      addTrade(state, applySwap(state, event, context.stable, timestamp), event, timestamp);
      tokenAddress = state.address;
    }
    eventLines.push(
      `${provenanceText(event, timestamp)}\t${tokenAddress}\t${event.type}\t${copyEscape(eventDataJson(event))}`,
    );
  }
  plan.tradedTokens = [...traded];
  plan.tradeLines = tradeLines.done();
  plan.eventLines = eventLines.done();

  const launched = new Set(plan.launches.map(({ event }) => event.token));
  const historyLines = lineBlocks();
  for (const [token, wallets] of balanceSteps) {
    const state = plan.states.get(token) as TokenState;
    const fresh = launched.has(token);
    // The pool is the pool's from its graduation block on; before, whoever sent it tokens made it a holder.
    const kindAt = (wallet: string, block: number) =>
      wallet === state.curve
        ? balanceKind.curve
        : wallet === state.poolAddress && (state.graduatedBlock === null || block >= state.graduatedBlock)
          ? balanceKind.pool
          : wallet === BURN_ADDRESS
            ? balanceKind.burn
            : wallet === context.graduator || wallet === context.factory
              ? balanceKind.launchpad
              : balanceKind.holder;
    const history = foldTokenHistory(
      token,
      wallets,
      (wallet) => (fresh ? null : stored.get(token, wallet)),
      kindAt,
      state,
      segmentMin,
    );
    for (const change of history.changes) plan.balances.push(change);
    for (const line of history.lines) historyLines.push(line);
    if (history.splits.length > 0)
      plan.historySplits.push({ token, from: history.segmentBefore, blocks: history.splits });
  }
  plan.historyLines = historyLines.done();
  return plan;
}
