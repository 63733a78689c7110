import { type ChainLedger, DEAD, type Token, type Trade, WAD, ZERO } from './chain-state';
import type { ChainView } from './chain-view';

/**
 * The oracle's derived figures (candles, holders, 24 h windows, price change, market cap,
 * progress, search ranks) and the list item and trade item every answer is made of, written from
 * docs/api.md, not from the API's code.
 */

const DAY = 86_400;
export const CHART_INTERVALS = {
  '1m': 60,
  '5m': 300,
  '15m': 900,
  '1h': 3600,
  '4h': 14_400,
  '1d': 86_400,
  '1w': 604_800,
};
export type ChartIntervalName = keyof typeof CHART_INTERVALS;

/** A draft bound by finalize, as the test bound it. */
export interface Binding {
  draftId: string;
  description: string;
  imageKey: string;
  websiteUrl: string | null;
  xUrl: string | null;
  telegramUrl: string | null;
  discordUrl: string | null;
}

export type Json = Record<string, unknown>;

export const desc = <T>(a: T, b: T) => (a > b ? -1 : a < b ? 1 : 0);

/** Round half away from zero of n / d (d > 0), as PostgreSQL's round(numeric). */
function roundDiv(n: bigint, d: bigint): bigint {
  const magnitude = (2n * (n < 0n ? -n : n) + d) / (2n * d);
  return n < 0n ? -magnitude : magnitude;
}

interface Candle {
  time: number;
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  volume: bigint;
  trades: number;
}

export const candleJson = (c: Candle): Json => ({
  time: c.time,
  open: String(c.open),
  high: String(c.high),
  low: String(c.low),
  close: String(c.close),
  volume: String(c.volume),
  trades: c.trades,
});

export function normalizeSearch(value: string): string {
  return value.normalize('NFKC').toLowerCase().trim().replace(/\s+/gu, ' ');
}

/** The figures of each token at the view's head, over the ledger folded from it. */
export function createMeasures(view: ChainView, ledger: ChainLedger, bindings: ReadonlyMap<string, Binding>) {
  const { balances } = ledger;
  const headTs = view.head.timestamp;
  const notHolders = new Set([ZERO, DEAD, view.graduator, view.factory]);

  const candlesOf = (token: Token, seconds: number) => {
    const buckets = new Map<number, Omit<Candle, 'time'>>();
    for (const trade of token.trades) {
      const start = trade.log.blockTimestamp - (trade.log.blockTimestamp % seconds);
      const c = buckets.get(start);
      if (!c)
        buckets.set(start, {
          open: trade.price,
          high: trade.price,
          low: trade.price,
          close: trade.price,
          volume: trade.reserveAmount,
          trades: 1,
        });
      else {
        if (trade.price > c.high) c.high = trade.price;
        if (trade.price < c.low) c.low = trade.price;
        c.close = trade.price;
        c.volume += trade.reserveAmount;
        c.trades++;
      }
    }
    return [...buckets.entries()].map(([time, c]) => ({ time, ...c })).sort((a, b) => a.time - b.time);
  };

  const holdersOf = (token: Token) =>
    [...(balances.get(token.address) ?? new Map<string, bigint>()).entries()]
      .filter(
        ([wallet, balance]) =>
          balance > 0n && !notHolders.has(wallet) && wallet !== token.curve && wallet !== token.pool,
      )
      .sort(([wa, a], [wb, b]) => desc(a, b) || desc(wa, wb));

  const windowOf = (token: Token) => {
    const window = token.trades.filter(
      (t) => t.log.blockTimestamp > headTs - DAY && t.log.blockTimestamp <= headTs,
    );
    const volume = window.reduce((sum, t) => sum + t.reserveAmount, 0n);
    const traders = new Set(window.map((t) => t.trader)).size;
    const score =
      window.length === 0
        ? 0
        : Math.log1p(Number(volume) / 1e18) + 2 * Math.log1p(traders) + Math.log1p(window.length);
    return { volume, trades: window.length, traders, score };
  };

  const priceChange = (token: Token): number | null => {
    const minutes = candlesOf(token, 60);
    if (minutes.length === 0) return null;
    const before = minutes.filter((c) => c.time <= headTs - DAY).at(-1);
    const reference = before ? before.close : (minutes[0]?.open ?? 0n);
    if (reference <= 0n) return null;
    const bps = roundDiv((token.price - reference) * 10_000n, reference);
    return Number(bps > 2_000_000_000n ? 2_000_000_000n : bps < -2_000_000_000n ? -2_000_000_000n : bps);
  };

  /** Supply shares in basis points (rounded down): 10 largest holders, the creator, curve, pool, burn. */
  const concentrationOf = (token: Token): Json => {
    const held = balances.get(token.address) ?? new Map<string, bigint>();
    const bps = (amount: bigint) => Number((amount * 10_000n) / token.totalSupply);
    const top10 = holdersOf(token)
      .slice(0, 10)
      .reduce((sum, [, balance]) => sum + balance, 0n);
    return {
      top10_holders_bps: bps(top10),
      creator_bps: bps(held.get(token.creator) ?? 0n),
      curve_bps: bps(held.get(token.curve) ?? 0n),
      pool_bps: bps(token.pool ? (held.get(token.pool) ?? 0n) : 0n),
      burned_bps: bps(held.get(DEAD) ?? 0n),
    };
  };

  const graduated = (token: Token) => token.graduation !== null;
  const marketCap = (token: Token) =>
    (token.price *
      (graduated(token) ? token.totalSupply - token.burned : token.curveSupply - token.realTokenReserve)) /
    WAD;
  const progress = (token: Token) => {
    if (graduated(token)) return 10_000;
    const bps = (token.realReserve * 10_000n) / token.threshold;
    return Number(bps > 10_000n ? 10_000n : bps);
  };
  const hasLinks = (address: string) => {
    const b = bindings.get(address);
    return b !== undefined && [b.websiteUrl, b.xUrl, b.telegramUrl, b.discordUrl].some((l) => l !== null);
  };

  const listItem = (token: Token): Json => {
    const binding = bindings.get(token.address);
    const w = windowOf(token);
    return {
      address: token.address,
      name: token.name,
      symbol: token.symbol,
      image_url: binding ? `/objects/${binding.imageKey}` : null,
      creator: token.creator,
      created_at: token.launch.blockTimestamp,
      lifecycle: graduated(token) ? 'graduated' : 'curve',
      progress_bps: progress(token),
      current_price: String(token.price),
      price_change_24h_bps: priceChange(token),
      market_cap: String(marketCap(token)),
      volume_24h: String(w.volume),
      trades_24h: w.trades,
      holders: holdersOf(token).length,
    };
  };

  /** The best rank of a token for a normalized search, or undefined when it does not match. */
  const searchRankOf = (token: Token, search: string): number | undefined => {
    const symbol = normalizeSearch(token.symbol);
    const name = normalizeSearch(token.name);
    const ranks: number[] = [];
    if (symbol === search) ranks.push(0);
    if (symbol.startsWith(search)) ranks.push(1);
    if (name.startsWith(search)) ranks.push(2);
    if (
      name
        .split(/[\s._-]+/u)
        .slice(1)
        .some((word) => word.startsWith(search))
    )
      ranks.push(3);
    if (/^(0x)?[0-9a-f]+$/.test(search) || search === '0x') {
      const prefix = search.startsWith('0x') ? search : `0x${search}`;
      if (token.address.startsWith(prefix)) ranks.push(4);
    }
    return ranks.length === 0 ? undefined : Math.min(...ranks);
  };

  const tradeItem = (t: Trade): Json => ({
    block_timestamp: t.log.blockTimestamp,
    token_address: t.token,
    trader: t.trader,
    side: t.side,
    token_amount: String(t.tokenAmount),
    reserve_amount: String(t.reserveAmount),
    curve_value: String(t.curveValue),
    protocol_fee: String(t.protocolFee),
    creator_fee: String(t.creatorFee),
    source: t.source,
    block_number: t.log.blockNumber,
    transaction_index: t.log.transactionIndex,
    transaction_hash: t.log.transactionHash,
    log_index: t.log.logIndex,
  });

  return {
    headTs,
    candlesOf,
    holdersOf,
    windowOf,
    priceChange,
    concentrationOf,
    graduated,
    marketCap,
    progress,
    hasLinks,
    listItem,
    searchRankOf,
    tradeItem,
  };
}

export type Measures = ReturnType<typeof createMeasures>;
