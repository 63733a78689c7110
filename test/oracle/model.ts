import { type ChainLedger, foldChain, type Token, WAD } from './chain-state';
import type { ChainView, ViewLog } from './chain-view';
import { type Binding, createMeasures, desc, type Json, normalizeSearch } from './measures';
import { tokenAnswers } from './token-answers';
import { buildTradersOracle } from './traders';

export { type Binding, CHART_INTERVALS, type ChartIntervalName } from './measures';

/**
 * An independent model of every read answer of `/api/v1`, computed from the canonical chain
 * (chain-view.ts) and what the test itself did off chain (bindings, exclusions). It shares no
 * code with the indexer or the API: list orders, windows, ranks and rounding are written here
 * again from docs/api.md, so a wrong rule on either side shows up as a difference.
 */

export interface OracleInput {
  view: ChainView;
  excluded?: ReadonlySet<string>;
  bindings?: ReadonlyMap<string, Binding>;
}

export function buildOracle(input: OracleInput) {
  const { view } = input;
  const excluded = input.excluded ?? new Set<string>();
  const bindings = input.bindings ?? new Map<string, Binding>();
  const ledger = foldChain(view);
  const { tokens, balances } = ledger;
  // Default label parameters: the stacks the oracle checks run with SNIPER_BLOCKS, BUNDLER_WALLETS,
  // FUNDING_HOPS and FUNDING_WINDOW_BLOCKS unset.
  const traders = buildTradersOracle(
    view,
    { sniperBlocks: 3, bundlerWallets: 4, fundingHops: 2, fundingWindowBlocks: 300 },
    (t) => tokens.get(t)?.price ?? 0n,
  );
  const measures = createMeasures(view, ledger, bindings);
  const { holdersOf, windowOf, graduated, marketCap, progress, hasLinks, listItem, searchRankOf } = measures;

  const all = [...tokens.values()];
  const listed = all.filter((t) => !excluded.has(t.address));
  const newestFirst = (a: Token, b: Token) =>
    b.launch.blockNumber - a.launch.blockNumber || b.launch.logIndex - a.launch.logIndex;
  const byMarketCap = (a: Token, b: Token) => desc(marketCap(a), marketCap(b)) || desc(a.address, b.address);
  const trendingOrder = (a: Token, b: Token) =>
    windowOf(b).score - windowOf(a).score || desc(a.address, b.address);

  const wallets = new Set<string>();
  for (const held of balances.values()) for (const wallet of held.keys()) wallets.add(wallet);

  /** The ledger and measures at the end of a block: the chain's logs up to it, folded again. */
  const states = new Map<number, { ledger: ChainLedger; measures: ReturnType<typeof createMeasures> }>();
  const stateAt = (block: number) => {
    let state = states.get(block);
    if (!state) {
      const then = { ...view, logs: view.logs.filter((log) => log.blockNumber <= block) };
      const ledgerThen = foldChain(then);
      state = { ledger: ledgerThen, measures: createMeasures(then, ledgerThen, bindings) };
      states.set(block, state);
    }
    return state;
  };

  /** A wallet's holdings from `held` (token → wallet → balance), each token as it is now. */
  const holdingsOf = (wallet: string, held: ChainLedger['balances']): Json[] =>
    all
      .filter((t) => (held.get(t.address)?.get(wallet) ?? 0n) > 0n)
      .sort((a, b) => (a.address < b.address ? -1 : 1))
      .map((t) => {
        const balance = held.get(t.address)?.get(wallet) ?? 0n;
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
      return holdingsOf(wallet, balances);
    },

    /**
     * `/tokens/{address}/holders?block=N`: the holders at the end of block N, from the chain's
     * logs up to it (the pool is a holder's address until its token graduates).
     */
    holdersAt(address: string, block: number): Json[] {
      const then = stateAt(block);
      const token = then.ledger.tokens.get(address);
      if (!token) return [];
      return then.measures.holdersOf(token).map(([wallet, balance]) => ({
        wallet,
        balance: String(balance),
        share_bps: Number((balance * 10_000n) / token.totalSupply),
      }));
    },

    /** `/wallets/{address}/holdings?block=N`: balances at the end of block N, the rest as it is now. */
    holdingsAt(wallet: string, block: number): Json[] {
      return holdingsOf(wallet, stateAt(block).ledger.balances);
    },

    /** Blocks worth asking about: every block with a Transfer, the first one's parent, the head. */
    transferBlocks(): number[] {
      const blocks = new Set<number>();
      for (const log of view.logs) if (log.eventName === 'Transfer') blocks.add(log.blockNumber);
      const sorted = [...blocks].sort((a, b) => a - b);
      return sorted.length === 0
        ? [view.head.number]
        : [(sorted[0] as number) - 1, ...sorted, view.head.number];
    },

    ...tokenAnswers(view, ledger, measures, { excluded, bindings, traders }),
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
