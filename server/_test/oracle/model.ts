import { curvePrice, poolPrice } from '../../../shared/chain/curve-math';
import type { ChainView, ViewLog } from './chain-view';
import { buildTradersOracle } from './traders';

/**
 * An independent model of every read answer of `/api/v1`, computed from the canonical chain
 * (chain-view.ts) and what the test itself did off chain (bindings, exclusions). It shares no
 * code with the indexer or the API: list orders, windows, ranks and rounding are written here
 * again from docs/api.md, so a wrong rule on either side shows up as a difference.
 */

const WAD = 10n ** 18n;
const DAY = 86_400;
const ZERO = '0x0000000000000000000000000000000000000000';
const DEAD = '0x000000000000000000000000000000000000dead';
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

export interface OracleInput {
  view: ChainView;
  excluded?: ReadonlySet<string>;
  bindings?: ReadonlyMap<string, Binding>;
}

type Json = Record<string, unknown>;

interface Trade {
  token: string;
  trader: string;
  side: 'buy' | 'sell';
  source: 'curve' | 'dex_v3';
  tokenAmount: bigint;
  reserveAmount: bigint;
  curveValue: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  price: bigint;
  log: ViewLog;
}

interface Token {
  address: string;
  name: string;
  symbol: string;
  creator: string;
  curve: string;
  totalSupply: bigint;
  curveSupply: bigint;
  launch: ViewLog;
  virtualTokenReserve: bigint;
  virtualReserve: bigint;
  realTokenReserve: bigint;
  realReserve: bigint;
  threshold: bigint;
  price: bigint;
  pool: string | null;
  graduation: ViewLog | null;
  burned: bigint;
  trades: Trade[];
  events: { kind: string; log: ViewLog; data: Record<string, string> }[];
}

const s = (log: ViewLog, key: string) => String(log.args[key]);
const big = (log: ViewLog, key: string) => BigInt(s(log, key));
const desc = <T>(a: T, b: T) => (a > b ? -1 : a < b ? 1 : 0);

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

const candleJson = (c: Candle): Json => ({
  time: c.time,
  open: String(c.open),
  high: String(c.high),
  low: String(c.low),
  close: String(c.close),
  volume: String(c.volume),
  trades: c.trades,
});

function normalizeSearch(value: string): string {
  return value.normalize('NFKC').toLowerCase().trim().replace(/\s+/gu, ' ');
}

export function buildOracle(input: OracleInput) {
  const { view } = input;
  const excluded = input.excluded ?? new Set<string>();
  const bindings = input.bindings ?? new Map<string, Binding>();
  const tokens = new Map<string, Token>();
  const poolToken = new Map<string, string>();
  const balances = new Map<string, Map<string, bigint>>(); // token → wallet → balance

  for (const log of view.logs) {
    if (log.eventName === 'TokenLaunched' && log.address === view.factory) {
      const address = s(log, 'token');
      tokens.set(address, {
        address,
        name: s(log, 'name'),
        symbol: s(log, 'symbol'),
        creator: s(log, 'creator'),
        curve: s(log, 'curve'),
        totalSupply: big(log, 'totalSupply'),
        curveSupply: big(log, 'realTokenReserve'),
        launch: log,
        virtualTokenReserve: big(log, 'virtualTokenReserve'),
        virtualReserve: big(log, 'virtualReserve'),
        realTokenReserve: big(log, 'realTokenReserve'),
        realReserve: 0n,
        threshold: big(log, 'graduationThreshold'),
        price: curvePrice(big(log, 'virtualTokenReserve'), big(log, 'virtualReserve')),
        pool: null,
        graduation: null,
        burned: 0n,
        trades: [],
        events: [],
      });
    }
  }
  const dataOf = (log: ViewLog, extra: Record<string, string> = {}) => ({
    ...extra,
    ...Object.fromEntries(Object.entries(log.args).map(([k, v]) => [k, String(v)])),
  });

  for (const log of view.logs) {
    if (log.address === view.factory) {
      const token = tokens.get(s(log, 'token'));
      if (!token) continue;
      if (log.eventName === 'TokenLaunched') token.events.push({ kind: 'launch', log, data: dataOf(log) });
      if (log.eventName === 'Trade') {
        token.virtualTokenReserve = big(log, 'virtualTokenReserve');
        token.virtualReserve = big(log, 'virtualReserve');
        token.realTokenReserve = big(log, 'realTokenReserve');
        token.realReserve = big(log, 'realReserve');
        token.price = curvePrice(token.virtualTokenReserve, token.virtualReserve);
        token.trades.push({
          token: token.address,
          trader: s(log, 'trader'),
          side: log.args.isBuy === true ? 'buy' : 'sell',
          source: 'curve',
          tokenAmount: big(log, 'tokenAmount'),
          reserveAmount: big(log, 'reserveAmount'),
          curveValue: big(log, 'curveValue'),
          protocolFee: big(log, 'protocolFee'),
          creatorFee: big(log, 'creatorFee'),
          price: token.price,
          log,
        });
        token.events.push({ kind: 'trade', log, data: dataOf(log) });
      }
      if (log.eventName === 'Graduated') {
        token.pool = s(log, 'pool');
        token.graduation = log;
        token.burned = big(log, 'burnedTokenAmount');
        poolToken.set(token.pool, token.address);
        token.events.push({ kind: 'graduation', log, data: dataOf(log) });
      }
    } else if (log.eventName === 'Transfer') {
      const token = tokens.get(log.address);
      if (!token) continue;
      const value = big(log, 'value');
      const held = balances.get(token.address) ?? new Map<string, bigint>();
      balances.set(token.address, held);
      const from = s(log, 'from');
      const to = s(log, 'to');
      if (from !== ZERO) held.set(from, (held.get(from) ?? 0n) - value);
      held.set(to, (held.get(to) ?? 0n) + value);
      token.events.push({ kind: 'transfer', log, data: dataOf(log, { token: token.address }) });
    } else if (log.eventName === 'Swap') {
      const address = poolToken.get(log.address);
      const token = address ? tokens.get(address) : undefined;
      if (!token) continue;
      const tokenIsToken0 = BigInt(token.address) < BigInt(view.stable);
      const tokenDelta = big(log, tokenIsToken0 ? 'amount0' : 'amount1');
      const stableDelta = big(log, tokenIsToken0 ? 'amount1' : 'amount0');
      const reserve = (stableDelta < 0n ? -stableDelta : stableDelta) * 10n ** 12n;
      token.price = poolPrice(big(log, 'sqrtPriceX96'), tokenIsToken0);
      token.trades.push({
        token: token.address,
        trader: s(log, 'recipient'),
        side: tokenDelta < 0n ? 'buy' : 'sell',
        source: 'dex_v3',
        tokenAmount: tokenDelta < 0n ? -tokenDelta : tokenDelta,
        reserveAmount: reserve,
        curveValue: reserve,
        protocolFee: 0n,
        creatorFee: 0n,
        price: token.price,
        log,
      });
      token.events.push({ kind: 'swap', log, data: dataOf(log, { pool: log.address }) });
    }
  }

  const headTs = view.head.timestamp;
  // Default label parameters: the stacks the oracle checks run with SNIPER_BLOCKS and BUNDLER_WALLETS unset.
  const traders = buildTradersOracle(
    view,
    { sniperBlocks: 3, bundlerWallets: 4 },
    (t) => tokens.get(t)?.price ?? 0n,
  );
  const notHolders = new Set([ZERO, DEAD, view.graduator, view.factory]);

  const candlesOf = (token: Token, seconds: number) => {
    const buckets = new Map<
      number,
      { open: bigint; high: bigint; low: bigint; close: bigint; volume: bigint; trades: number }
    >();
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

  const all = [...tokens.values()];
  const listed = all.filter((t) => !excluded.has(t.address));
  const newestFirst = (a: Token, b: Token) =>
    b.launch.blockNumber - a.launch.blockNumber || b.launch.logIndex - a.launch.logIndex;
  const byMarketCap = (a: Token, b: Token) => desc(marketCap(a), marketCap(b)) || desc(a.address, b.address);

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

  const trendingOrder = (a: Token, b: Token) =>
    windowOf(b).score - windowOf(a).score || desc(a.address, b.address);

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

  const wallets = new Set<string>();
  for (const held of balances.values()) for (const wallet of held.keys()) wallets.add(wallet);

  const POSITION = 2n ** 32n;
  const position = (log: ViewLog) => BigInt(log.blockNumber) * POSITION + BigInt(log.logIndex);

  return {
    head: view.head,

    /**
     * A row's keyset key in a list at this state, descending on both parts, or undefined when the
     * row is not in the list: what the API's cursor holds after that row.
     */
    orderKey(list: OrderedList, id: string, token?: string): OrderKey | undefined {
      if (list === 'trades' || list === 'activity') {
        const [block, logIndex] = id.split(':').map(BigInt) as [bigint, bigint];
        return [block * POSITION + logIndex, ''];
      }
      if (list === 'holders') {
        const row = holdersOf(tokens.get(token ?? '') as Token).find(([wallet]) => wallet === id);
        return row ? [row[1], id] : undefined;
      }
      const t = tokens.get(id);
      if (!t || excluded.has(id)) return undefined;
      if (list === 'new') return [position(t.launch), id];
      if (list === 'top') return [marketCap(t), id];
      if (list === 'near') return graduated(t) ? undefined : [progress(t), id];
      const score = windowOf(t).score;
      return score > 0 ? [score, id] : undefined;
    },
    tokenAddresses: all.map((t) => t.address),
    creators: [...new Set(all.map((t) => t.creator))],
    wallets: [...wallets],
    /** `/tokens/{address}/traders?sort=…` and `/wallets/{address}/pnl` (oracle/traders.ts). */
    tokenTraders: (address: string, sort: string) => traders.traders(address, sort),
    /** An excluded token keeps its row, unpriced (as in holdings): no price, no unrealized PnL. */
    walletPnl: (wallet: string) =>
      traders
        .pnl(wallet)
        .map((row) =>
          excluded.has(String(row.token)) ? { ...row, price: null, unrealized_pnl: null } : row,
        ),
    /** Words a person could type: symbol and name-word prefixes, exact symbols, address prefixes. */
    searchTerms(): string[] {
      const terms = new Set<string>(['0x', '0x0', 'zz', 'a']);
      for (const token of all) {
        const symbol = normalizeSearch(token.symbol);
        terms.add(symbol);
        terms.add(symbol.slice(0, 2));
        for (const word of normalizeSearch(token.name).split(/[\s._-]+/u)) terms.add(word.slice(0, 3));
        terms.add(token.address.slice(2, 4));
      }
      return [...terms].filter((t) => t !== '' && /^[\p{L}\p{N} ._-]*$/u.test(t)).sort();
    },

    /** `/tokens?view=…` or `?search=…` (search already normalized by the caller's choice of text). */
    tokens(options: { view?: 'new' | 'top' | 'near' | 'linked'; search?: string } = {}): Json[] {
      const search = options.search === undefined ? '' : normalizeSearch(options.search);
      if (search !== '') {
        return listed
          .map((token) => ({ token, rank: searchRankOf(token, search) }))
          .filter((m): m is { token: Token; rank: number } => m.rank !== undefined)
          .sort((a, b) => a.rank - b.rank || byMarketCap(a.token, b.token))
          .map((m) => listItem(m.token));
      }
      const view = options.view ?? 'new';
      if (view === 'top') return [...listed].sort(byMarketCap).map(listItem);
      if (view === 'near')
        return listed
          .filter((t) => !graduated(t))
          .sort((a, b) => progress(b) - progress(a) || desc(a.address, b.address))
          .map(listItem);
      if (view === 'linked')
        return listed
          .filter((t) => hasLinks(t.address))
          .sort(newestFirst)
          .map(listItem);
      return [...listed].sort(newestFirst).map(listItem);
    },

    trending(options: { view?: 'new' | 'top' | 'near' | 'linked'; search?: string } = {}): Json[] {
      const search = options.search === undefined ? '' : normalizeSearch(options.search);
      return listed
        .filter((t) => windowOf(t).score > 0)
        .filter((t) => options.view !== 'near' || !graduated(t))
        .filter((t) => options.view !== 'linked' || hasLinks(t.address))
        .filter((t) => search === '' || searchRankOf(t, search) !== undefined)
        .sort(trendingOrder)
        .map(listItem);
    },

    /** `/tokens/batch`: list items in the order asked (each once), the unknown and the excluded apart. */
    batch(addresses: string[]): Json {
      const asked = [...new Set(addresses.map((a) => a.toLowerCase()))];
      return {
        indexed_through_block: view.head.number,
        items: asked
          .filter((a) => tokens.has(a) && !excluded.has(a))
          .map((a) => listItem(tokens.get(a) as Token)),
        not_found: asked.filter((a) => !tokens.has(a)),
        excluded: asked.filter((a) => tokens.has(a) && excluded.has(a)),
      };
    },

    creatorTokens(creator: string): Json[] {
      return listed
        .filter((t) => t.creator === creator)
        .sort(newestFirst)
        .map(listItem);
    },

    creator(creator: string): Json | undefined {
      const mine = all.filter((t) => t.creator === creator);
      if (mine.length === 0) return undefined;
      const launchedAt = mine.map((t) => t.launch.blockTimestamp);
      return {
        address: creator,
        tokens_launched: mine.length,
        tokens_graduated: mine.filter(graduated).length,
        first_launch_at: Math.min(...launchedAt),
        last_launch_at: Math.max(...launchedAt),
        total_volume: String(
          mine.reduce((sum, t) => sum + t.trades.reduce((v, trade) => v + trade.reserveAmount, 0n), 0n),
        ),
        indexed_through_block: view.head.number,
      };
    },

    holdings(wallet: string): Json[] {
      return all
        .filter((t) => (balances.get(t.address)?.get(wallet) ?? 0n) > 0n)
        .sort((a, b) => (a.address < b.address ? -1 : 1))
        .map((t) => {
          const balance = balances.get(t.address)?.get(wallet) ?? 0n;
          const price = excluded.has(t.address) ? null : t.price;
          return {
            token: listItem(t),
            balance: String(balance),
            lifecycle: graduated(t) ? 'graduated' : 'curve',
            price: price === null ? null : String(price),
            value: price === null ? null : String((balance * price) / WAD),
            metrics: {
              market_cap: String(marketCap(t)),
              volume_24h: String(windowOf(t).volume),
              holders: holdersOf(t).length,
            },
          };
        });
    },

    trades(address: string): Json[] {
      const token = tokens.get(address);
      return token ? [...token.trades].reverse().map(tradeItem) : [];
    },

    activity(address: string, kind?: string): Json[] {
      const token = tokens.get(address);
      if (!token) return [];
      return token.events
        .filter((e) => kind === undefined || e.kind === kind)
        .sort((a, b) => b.log.blockNumber - a.log.blockNumber || b.log.logIndex - a.log.logIndex)
        .map((e) => ({
          kind: e.kind,
          block_number: e.log.blockNumber,
          block_timestamp: e.log.blockTimestamp,
          block_hash: e.log.blockHash,
          transaction_hash: e.log.transactionHash,
          transaction_index: e.log.transactionIndex,
          log_index: e.log.logIndex,
          data: e.data,
        }));
    },

    holders(address: string): Json[] {
      const token = tokens.get(address);
      if (!token) return [];
      return holdersOf(token).map(([wallet, balance]) => ({
        wallet,
        balance: String(balance),
        share_bps: Number((balance * 10_000n) / token.totalSupply),
      }));
    },

    detail(address: string): Json | undefined {
      const token = tokens.get(address);
      if (!token) return undefined;
      const w = windowOf(token);
      const binding = bindings.get(address);
      const g = token.graduation;
      return {
        indexed_through_block: view.head.number,
        identity: {
          address,
          name: token.name,
          symbol: token.symbol,
          decimals: 18,
          total_supply: String(token.totalSupply),
        },
        metadata: binding
          ? {
              description: binding.description,
              image_url: `/objects/${binding.imageKey}`,
              website_url: binding.websiteUrl,
              x_url: binding.xUrl,
              telegram_url: binding.telegramUrl,
              discord_url: binding.discordUrl,
              draft_id: binding.draftId,
            }
          : null,
        creation: {
          creator: token.creator,
          block_number: token.launch.blockNumber,
          block_timestamp: token.launch.blockTimestamp,
          transaction_hash: token.launch.transactionHash,
          transaction_index: token.launch.transactionIndex,
          log_index: token.launch.logIndex,
        },
        curve: {
          lifecycle: graduated(token) ? 'graduated' : 'curve',
          virtual_token_reserve: String(token.virtualTokenReserve),
          virtual_reserve: String(token.virtualReserve),
          real_token_reserve: String(token.realTokenReserve),
          real_reserve: String(token.realReserve),
          graduation_threshold: String(token.threshold),
          progress_bps: progress(token),
        },
        metrics: {
          current_price: String(token.price),
          price_change_24h_bps: priceChange(token),
          market_cap: String(marketCap(token)),
          fully_diluted_value: String((token.price * token.totalSupply) / WAD),
          volume_24h: String(w.volume),
          trades_24h: w.trades,
          traders_24h: w.traders,
          holders: holdersOf(token).length,
          last_trade_at: token.trades.at(-1)?.log.blockTimestamp ?? null,
        },
        ...(g
          ? {
              graduation: {
                pool_address: s(g, 'pool'),
                block_number: g.blockNumber,
                block_timestamp: g.blockTimestamp,
                transaction_hash: g.transactionHash,
                token_amount: s(g, 'tokenAmount'),
                reserve_amount: s(g, 'reserveAmount'),
              },
            }
          : {}),
        concentration: concentrationOf(token),
        risk: traders.risk(address, token.totalSupply, (wallet) => balances.get(address)?.get(wallet) ?? 0n),
        excluded: excluded.has(address),
      };
    },

    pricing(address: string): Json | undefined {
      const token = tokens.get(address);
      if (!token) return undefined;
      return {
        token_address: address,
        current_price: String(token.price),
        fully_diluted_value: String((token.price * token.totalSupply) / WAD),
        source:
          graduated(token) && token.trades.at(-1)?.source === 'dex_v3'
            ? 'indexed_v3_market'
            : 'indexed_v3_curve',
        indexed_through_block: view.head.number,
      };
    },

    /**
     * `fill=previous`: every bucket slot of the window — the last `limit` slots up to the bucket
     * of the indexed head (or of `to` − 1), none before `from` — holding its candle, or else a
     * flat candle at the last close before it (from any earlier candle, in range or not); slots
     * before the token's first trade are left out.
     */
    filledChart(
      address: string,
      interval: ChartIntervalName,
      options: { limit?: number; from?: number; to?: number } = {},
    ): Json | undefined {
      const token = tokens.get(address);
      if (!token) return undefined;
      const seconds = CHART_INTERVALS[interval];
      const limit = options.limit ?? 168;
      const from = options.from ?? 0;
      const last = Math.min((options.to ?? Number.MAX_SAFE_INTEGER) - 1, headTs);
      const end = last - (last % seconds);
      const candles = candlesOf(token, seconds).filter((c) => c.time <= end);
      const items: Json[] = [];
      for (
        let time = Math.max(end - (limit - 1) * seconds, Math.ceil(from / seconds) * seconds);
        time <= end;
        time += seconds
      ) {
        const own = candles.find((c) => c.time === time);
        const previous = candles.filter((c) => c.time < time).at(-1);
        const c =
          own ??
          (previous && {
            ...previous,
            time,
            open: previous.close,
            high: previous.close,
            low: previous.close,
            volume: 0n,
            trades: 0,
          });
        if (c) items.push(candleJson({ ...c, time }));
      }
      return { token_address: address, interval, indexed_through_block: view.head.number, items };
    },

    /** The most recent `limit` buckets whose start lies in [from, to), oldest first. */
    chart(
      address: string,
      interval: ChartIntervalName,
      options: { limit?: number; from?: number; to?: number } = {},
    ): Json | undefined {
      const token = tokens.get(address);
      if (!token) return undefined;
      const from = options.from ?? 0;
      const to = options.to ?? Number.MAX_SAFE_INTEGER;
      const items = candlesOf(token, CHART_INTERVALS[interval])
        .filter((c) => c.time >= from && c.time < to)
        .slice(-(options.limit ?? 168))
        .map(candleJson);
      return { token_address: address, interval, indexed_through_block: view.head.number, items };
    },
  };
}

export type Oracle = ReturnType<typeof buildOracle>;

/** Lists by the kind of keyset order they walk (creator tokens walk `new`). */
export type OrderedList = 'new' | 'top' | 'near' | 'trending' | 'trades' | 'activity' | 'holders';
export type OrderKey = readonly [bigint | number, string];

/** Whether `key` comes after `cursor` in a list ordered descending on both parts. */
export function isAfter(key: OrderKey, cursor: OrderKey): boolean {
  return key[0] < cursor[0] || (key[0] === cursor[0] && key[1] < cursor[1]);
}
