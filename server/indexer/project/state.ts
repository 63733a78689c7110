import {
  curvePrice,
  graduationProgress,
  normalizeStablecoinAmount,
  poolPrice,
} from '../../../shared/chain/curve-math';
import { WAD } from '../../../shared/units';
import { HISTORY_SEGMENT_MIN_EVENTS } from '../../db/schema';
import type { DecodedEventOf } from '../decode/events';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export const BURN_ADDRESS = '0x000000000000000000000000000000000000dead';

/** The mutable part of a token row that trades and graduations change. */
export interface TokenState {
  address: string;
  creator: string;
  /** The launch's block (trader labels count from it). */
  createdBlock: number;
  curve: string;
  totalSupply: bigint;
  curveSupply: bigint;
  lifecycle: 'curve' | 'graduated';
  virtualTokenReserve: bigint;
  virtualReserve: bigint;
  realTokenReserve: bigint;
  realReserve: bigint;
  graduationThreshold: bigint;
  progressBps: number;
  poolAddress: string | null;
  graduatedBlock: number | null;
  graduatedAt: number | null;
  graduatedTransactionHash: string | null;
  graduationTokenAmount: bigint | null;
  graduationReserveAmount: bigint | null;
  burnedAmount: bigint;
  currentPrice: bigint;
  marketCap: bigint;
  fullyDilutedValue: bigint;
  tradeCount: number;
  totalVolume: bigint;
  lastTradeAt: number | null;
  lastTradeSource: 'curve' | 'dex_v3' | null;
  /** Wallets with a holder row (a kind-0 balance above zero), kept by the fold. */
  holders: number;
  /** Where the token's balance history segment starts, and what it may take before the next (balance-history.ts). */
  historySegment: number;
  historyCountdown: number;
}

/** Tokens in circulation: sold off the curve while it trades; all but the burned after graduation. */
export function circulatingSupply(token: TokenState): bigint {
  if (token.lifecycle === 'graduated') return token.totalSupply - token.burnedAmount;
  return token.curveSupply - token.realTokenReserve;
}

/** Market cap on circulating supply and FDV on total supply, both at the current price. */
export function revalue(token: TokenState, price: bigint): void {
  token.currentPrice = price;
  token.marketCap = (price * circulatingSupply(token)) / WAD;
  token.fullyDilutedValue = (price * token.totalSupply) / WAD;
}

export function tokenFromLaunch(event: DecodedEventOf<'launch'>): TokenState {
  const token: TokenState = {
    address: event.token,
    creator: event.creator,
    createdBlock: event.blockNumber,
    curve: event.curve,
    totalSupply: event.totalSupply,
    curveSupply: event.realTokenReserve,
    lifecycle: 'curve',
    virtualTokenReserve: event.virtualTokenReserve,
    virtualReserve: event.virtualReserve,
    realTokenReserve: event.realTokenReserve,
    realReserve: 0n,
    graduationThreshold: event.graduationThreshold,
    progressBps: 0,
    poolAddress: null,
    graduatedBlock: null,
    graduatedAt: null,
    graduatedTransactionHash: null,
    graduationTokenAmount: null,
    graduationReserveAmount: null,
    burnedAmount: 0n,
    currentPrice: 0n,
    marketCap: 0n,
    fullyDilutedValue: 0n,
    tradeCount: 0,
    totalVolume: 0n,
    lastTradeAt: null,
    lastTradeSource: null,
    holders: 0,
    historySegment: 0,
    historyCountdown: HISTORY_SEGMENT_MIN_EVENTS,
  };
  revalue(token, curvePrice(event.virtualTokenReserve, event.virtualReserve));
  return token;
}

/** A trade row in the shape of the `trades` table (amounts normalized to 18 decimals). */
export interface TradeRow {
  tokenAddress: string;
  trader: string;
  side: 'buy' | 'sell';
  source: 'curve' | 'dex_v3';
  tokenAmount: bigint;
  reserveAmount: bigint;
  curveValue: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  price: bigint;
}

export function applyCurveTrade(
  token: TokenState,
  event: DecodedEventOf<'trade'>,
  timestamp: number,
): TradeRow {
  token.virtualTokenReserve = event.virtualTokenReserve;
  token.virtualReserve = event.virtualReserve;
  token.realTokenReserve = event.realTokenReserve;
  token.realReserve = event.realReserve;
  token.progressBps = graduationProgress(event.realReserve, token.graduationThreshold);
  const price = curvePrice(event.virtualTokenReserve, event.virtualReserve);
  revalue(token, price);
  recordTrade(token, event.reserveAmount, timestamp, 'curve');
  return {
    tokenAddress: token.address,
    trader: event.trader,
    side: event.isBuy ? 'buy' : 'sell',
    source: 'curve',
    tokenAmount: event.tokenAmount,
    reserveAmount: event.reserveAmount,
    curveValue: event.curveValue,
    protocolFee: event.protocolFee,
    creatorFee: event.creatorFee,
    price,
  };
}

export function applyGraduation(
  token: TokenState,
  event: DecodedEventOf<'graduation'>,
  timestamp: number,
): void {
  token.lifecycle = 'graduated';
  token.progressBps = 10_000;
  token.poolAddress = event.pool;
  token.graduatedBlock = event.blockNumber;
  token.graduatedAt = timestamp;
  token.graduatedTransactionHash = event.transactionHash;
  token.graduationTokenAmount = event.tokenAmount;
  token.graduationReserveAmount = event.reserveAmount;
  token.burnedAmount = event.burnedTokenAmount;
  revalue(token, token.currentPrice);
}

/**
 * A pool swap as a trade: the stablecoin side arrives in 6 decimals and is normalized to 18
 * before anything else sees it. A buy is the token leaving the pool; the trader is the recipient.
 */
export function applySwap(
  token: TokenState,
  event: DecodedEventOf<'swap'>,
  stable: string,
  timestamp: number,
): TradeRow {
  const tokenIsToken0 = BigInt(token.address) < BigInt(stable);
  const tokenDelta = tokenIsToken0 ? event.amount0 : event.amount1;
  const stableDelta = tokenIsToken0 ? event.amount1 : event.amount0;
  const reserveAmount = normalizeStablecoinAmount(stableDelta < 0n ? -stableDelta : stableDelta);
  const price = poolPrice(event.sqrtPriceX96, tokenIsToken0);
  revalue(token, price);
  recordTrade(token, reserveAmount, timestamp, 'dex_v3');
  return {
    tokenAddress: token.address,
    trader: event.recipient,
    side: tokenDelta < 0n ? 'buy' : 'sell',
    source: 'dex_v3',
    tokenAmount: tokenDelta < 0n ? -tokenDelta : tokenDelta,
    reserveAmount,
    curveValue: reserveAmount,
    protocolFee: 0n,
    creatorFee: 0n,
    price,
  };
}

function recordTrade(token: TokenState, volume: bigint, timestamp: number, source: 'curve' | 'dex_v3') {
  token.tradeCount += 1;
  token.totalVolume += volume;
  token.lastTradeAt = timestamp;
  token.lastTradeSource = source;
}

export interface Candle {
  tokenAddress: string;
  intervalSeconds: number;
  bucketStart: number;
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  volume: bigint;
  trades: number;
  lastBlockNumber: number;
  lastLogIndex: number;
}

/**
 * Folds one trade into its candle (creating it when absent). A trade at or before the candle's
 * last folded log is ignored, so replaying a log cannot count it twice.
 */
export function foldTrade(
  candle: Candle | undefined,
  key: { tokenAddress: string; intervalSeconds: number; bucketStart: number },
  trade: { price: bigint; volume: bigint; blockNumber: number; logIndex: number },
): Candle {
  if (!candle) {
    return {
      ...key,
      open: trade.price,
      high: trade.price,
      low: trade.price,
      close: trade.price,
      volume: trade.volume,
      trades: 1,
      lastBlockNumber: trade.blockNumber,
      lastLogIndex: trade.logIndex,
    };
  }
  if (
    trade.blockNumber < candle.lastBlockNumber ||
    (trade.blockNumber === candle.lastBlockNumber && trade.logIndex <= candle.lastLogIndex)
  ) {
    return candle;
  }
  return {
    ...candle,
    // biome-ignore lint/complexity/useMathMinMax: bigint, which Math.max cannot compare
    high: trade.price > candle.high ? trade.price : candle.high,
    // biome-ignore lint/complexity/useMathMinMax: bigint, which Math.min cannot compare
    low: trade.price < candle.low ? trade.price : candle.low,
    close: trade.price,
    volume: candle.volume + trade.volume,
    trades: candle.trades + 1,
    lastBlockNumber: trade.blockNumber,
    lastLogIndex: trade.logIndex,
  };
}

export function bucketStart(timestamp: number, intervalSeconds: number): number {
  return timestamp - (timestamp % intervalSeconds);
}
