import type { ChainView, ViewLog } from './chain-view';
import type { Json } from './walk';

/**
 * Traders, PnL and labels computed a second time from the chain view, from docs/api.md
 * ("Traders, PnL and labels") alone: it shares no code with the indexer's fold
 * (server/indexer/project/traders.ts), so a rule written differently on either side shows up.
 */

const ZERO = '0x0000000000000000000000000000000000000000';
const DEAD = '0x000000000000000000000000000000000000dead';
const WAD = 10n ** 18n;

interface Position {
  wallet: string;
  bought: bigint;
  sold: bigint;
  spent: bigint;
  received: bigint;
  held: bigint;
  cost: bigint;
  pnl: bigint;
  buys: number;
  sells: number;
  first: ViewLog | null;
  last: ViewLog | null;
  creator: boolean;
  sniper: boolean;
  bundler: boolean;
  linked: boolean;
  /**
   * Has a row: traded, or received the token within the creator's cluster. Without one the
   * wallet is listed by no /traders page, and its PnL entry is its balance (docs/api.md).
   */
  opened: boolean;
}

interface OracleToken {
  creator: string;
  curve: string;
  pool: string | null;
  launchBlock: number;
  price: bigint;
  positions: Map<string, Position>;
  /** Per transaction: what it bought and where those tokens went (labels go by effect). */
  bought: Map<string, Bought>;
}

/** One transaction's dealings in a token. */
interface Bought {
  block: number;
  /** Wallets that bought, or received from one that had before in the transaction. */
  part: Set<string>;
  /** Each wallet's net change of the token over the transaction. */
  net: Map<string, bigint>;
}

const arg = (log: ViewLog, name: string) => String(log.args[name]).toLowerCase();
const num = (log: ViewLog, name: string) => BigInt(String(log.args[name]));

export interface OracleLabelParams {
  sniperBlocks: number;
  bundlerWallets: number;
  fundingHops: number;
  fundingWindowBlocks: number;
}

export function buildTradersOracle(
  view: ChainView,
  params: OracleLabelParams,
  prices: (token: string) => bigint,
) {
  const tokens = new Map<string, OracleToken>();
  const poolOf = new Map<string, string>();
  const notWallets = new Set([ZERO, DEAD, view.factory, view.graduator]);

  const at = (token: OracleToken, wallet: string): Position => {
    let p = token.positions.get(wallet);
    if (!p) {
      p = {
        wallet,
        bought: 0n,
        sold: 0n,
        spent: 0n,
        received: 0n,
        held: 0n,
        cost: 0n,
        pnl: 0n,
        buys: 0,
        sells: 0,
        first: null,
        last: null,
        creator: wallet === token.creator,
        sniper: false,
        bundler: false,
        linked: false,
        opened: false,
      };
      token.positions.set(wallet, p);
    }
    return p;
  };
  // Average cost of `amount` out of the position: everything when it is all (or more).
  const share = (p: Position, amount: bigint) =>
    p.held <= 0n ? 0n : amount >= p.held ? p.cost : (p.cost * amount) / p.held;
  const inCluster = (p: Position) => p.creator || p.linked;
  // Funded by the creator (docs/api.md): a chain of at most `fundingHops` payments, each later
  // than the one before, from the creator to the wallet, all in the window before its first buy.
  // Layer k holds, per wallet, the earliest place in the chain it is reachable at in k hops.
  const place = (block: number, index: number) => block * 1_000_000 + index;
  const funded = (creator: string, wallet: string, buy: ViewLog) => {
    const end = place(buy.blockNumber, buy.transactionIndex);
    const start = place(buy.blockNumber - params.fundingWindowBlocks, 0);
    const window = view.payments.filter((p) => {
      const at = place(p.blockNumber, p.transactionIndex);
      return at >= start && at < end;
    });
    let layer = new Map<string, number>([[creator, -1]]);
    const all = new Map(layer);
    for (let k = 1; k <= params.fundingHops; k++) {
      const next = new Map<string, number>();
      for (const p of window) {
        const since = layer.get(p.from);
        const at = place(p.blockNumber, p.transactionIndex);
        if (since === undefined || since >= at) continue;
        if (!next.has(p.to) || (next.get(p.to) as number) > at) next.set(p.to, at);
      }
      for (const [w, at] of next) if (!all.has(w) || (all.get(w) as number) > at) all.set(w, at);
      layer = new Map(all);
    }
    return wallet !== creator && all.has(wallet);
  };
  const dealings = (token: OracleToken, log: ViewLog) => {
    let b = token.bought.get(log.transactionHash);
    if (!b) {
      b = { block: log.blockNumber, part: new Set(), net: new Map() };
      token.bought.set(log.transactionHash, b);
    }
    return b;
  };
  const moves = (b: Bought, wallet: string, delta: bigint) =>
    b.net.set(wallet, (b.net.get(wallet) ?? 0n) + delta);

  const trade = (
    token: OracleToken,
    log: ViewLog,
    wallet: string,
    buy: boolean,
    amount: bigint,
    quote: bigint,
  ) => {
    const p = at(token, wallet);
    p.opened = true;
    const b = dealings(token, log);
    moves(b, wallet, buy ? amount : -amount);
    if (buy) {
      b.part.add(wallet);
      if (p.buys === 0 && !p.creator && funded(token.creator, wallet, log)) p.linked = true;
      p.bought += amount;
      p.spent += quote;
      p.cost += quote;
      p.held += amount;
      p.buys++;
    } else {
      const removed = share(p, amount);
      p.pnl += quote - removed;
      p.cost -= removed;
      p.sold += amount;
      p.received += quote;
      p.held -= amount;
      p.sells++;
    }
    p.first ??= log;
    p.last = log;
  };

  const isWallet = (token: OracleToken, address: string) =>
    !notWallets.has(address) && address !== token.curve && address !== token.pool;
  const market = (token: OracleToken, address: string) => address === token.curve || address === token.pool;
  // A trade moves the wallet its tokens went to or came from (docs/api.md): its token leg is the
  // token's last Transfer between a market and a wallet before the trade's log, in the trade's
  // transaction, of its amount and direction. The trade is applied where that Transfer is.
  const tradeAtLeg = new Map<ViewLog, { trade: ViewLog; wallet: string }>();
  const legged = new Set<ViewLog>();
  /** A Trade or Swap log as (token, buy, amount, quote, its recipient). */
  const tradeOf = (log: ViewLog) => {
    if (log.address === view.factory && log.eventName === 'Trade') {
      const token = tokens.get(arg(log, 'token'));
      const buy = log.args.isBuy === true;
      return token
        ? {
            token,
            buy,
            amount: num(log, 'tokenAmount'),
            quote: num(log, buy ? 'reserveAmount' : 'curveValue'),
            to: arg(log, 'trader'),
          }
        : null;
    }
    if (log.eventName !== 'Swap') return null;
    const address = poolOf.get(log.address);
    const token = address ? tokens.get(address) : undefined;
    if (!token || !address) return null;
    const first = BigInt(address) < BigInt(view.stable);
    const tokenDelta = num(log, first ? 'amount0' : 'amount1');
    const stableDelta = num(log, first ? 'amount1' : 'amount0');
    return {
      token,
      buy: tokenDelta < 0n,
      amount: tokenDelta < 0n ? -tokenDelta : tokenDelta,
      quote: (stableDelta < 0n ? -stableDelta : stableDelta) * 10n ** 12n,
      to: arg(log, 'recipient'),
    };
  };
  const lastLeg = new Map<OracleToken, ViewLog>();
  const follow = (log: ViewLog) => {
    if (log.address === view.factory && log.eventName === 'TokenLaunched') {
      tokens.set(arg(log, 'token'), {
        creator: arg(log, 'creator'),
        curve: arg(log, 'curve'),
        pool: null,
        launchBlock: log.blockNumber,
        price: 0n,
        positions: new Map(),
        bought: new Map(),
      });
    } else if (log.address === view.factory && log.eventName === 'Graduated') {
      const token = tokens.get(arg(log, 'token'));
      if (token) {
        token.pool = arg(log, 'pool');
        poolOf.set(token.pool, arg(log, 'token'));
      }
    }
  };
  for (const log of view.logs) {
    follow(log);
    const token = log.eventName === 'Transfer' ? tokens.get(log.address) : undefined;
    if (token) {
      const from = arg(log, 'from');
      const to = arg(log, 'to');
      if (
        num(log, 'value') > 0n &&
        ((market(token, from) && isWallet(token, to)) || (market(token, to) && isWallet(token, from)))
      )
        lastLeg.set(token, log);
      continue;
    }
    const traded = tradeOf(log);
    if (!traded) continue;
    const leg = lastLeg.get(traded.token);
    lastLeg.delete(traded.token);
    if (!leg || leg.transactionHash !== log.transactionHash || num(leg, 'value') !== traded.amount) continue;
    // A buy's tokens come from the market, a sell's go to it.
    const [marketSide, walletSide] = traded.buy ? ['from', 'to'] : ['to', 'from'];
    if (market(traded.token, arg(leg, marketSide))) {
      tradeAtLeg.set(leg, { trade: log, wallet: arg(leg, walletSide) });
      legged.add(log);
    }
  }
  // The second walk starts again from no token.
  tokens.clear();
  poolOf.clear();

  for (const log of view.logs) {
    follow(log);
    const legOf = tradeAtLeg.get(log);
    if (legOf || ((log.eventName === 'Trade' || log.eventName === 'Swap') && !legged.has(log))) {
      const source = legOf?.trade ?? log;
      const t = tradeOf(source);
      if (t) trade(t.token, source, legOf?.wallet ?? t.to, t.buy, t.amount, t.quote);
      continue;
    }
    if (log.eventName !== 'Transfer') continue;
    const token = tokens.get(log.address);
    if (!token) continue;
    const from = arg(log, 'from');
    const to = arg(log, 'to');
    const value = num(log, 'value');
    if (from === to || value === 0n) continue;
    // Between wallets, or a wallet's tokens to or from a market without a trade.
    let sender: Position | null = null;
    let carried = 0n;
    const b = dealings(token, log);
    if (isWallet(token, from)) {
      sender = at(token, from);
      carried = share(sender, value);
      sender.cost -= carried;
      sender.held -= value;
      moves(b, from, -value);
    }
    if (isWallet(token, to)) {
      const p = at(token, to);
      p.held += value;
      moves(b, to, value);
      // Tokens bought in this transaction, handed on by a wallet that took part in the buy.
      const handedOn = b.part.has(from);
      if (handedOn) b.part.add(to);
      // The creator's cluster: the creator and the wallets it sent the token to. Within it the
      // cost goes with the tokens; from anyone else they come at zero cost.
      const fromCreator = from === token.creator;
      if (handedOn || fromCreator || (sender !== null && inCluster(sender) && inCluster(p))) {
        p.cost += carried;
        p.opened = true;
      }
      if (fromCreator && !p.creator) p.linked = true;
    }
  }
  // Labels by effect: a transaction's takers are the wallets that took part in a buy and came
  // out of it with more of the token than they went in with.
  for (const token of tokens.values()) {
    const atLaunch = new Set<string>();
    for (const b of token.bought.values()) {
      const takers = [...b.part].filter((w) => (b.net.get(w) ?? 0n) > 0n);
      for (const w of takers) {
        const p = token.positions.get(w) as Position;
        if (p.creator) continue;
        if (b.block < token.launchBlock + params.sniperBlocks) p.sniper = true;
        if (takers.length >= 2) p.bundler = true;
        if (b.block === token.launchBlock) atLaunch.add(w);
      }
    }
    if (atLaunch.size >= params.bundlerWallets)
      for (const w of atLaunch) (token.positions.get(w) as Position).bundler = true;
  }

  const json = (p: Position, price: bigint): Json => ({
    bought: String(p.bought),
    sold: String(p.sold),
    quote_spent: String(p.spent),
    quote_received: String(p.received),
    balance: String(p.held),
    cost_basis: String(p.cost),
    realized_pnl: String(p.pnl),
    unrealized_pnl: String((p.held * price) / WAD - p.cost),
    buys: p.buys,
    sells: p.sells,
    first_trade_block: p.first?.blockNumber ?? null,
    first_trade_at: p.first?.blockTimestamp ?? null,
    last_trade_block: p.last?.blockNumber ?? null,
    last_trade_at: p.last?.blockTimestamp ?? null,
    labels: [
      ...(p.creator ? ['creator'] : []),
      ...(p.sniper ? ['sniper'] : []),
      ...(p.bundler ? ['bundler'] : []),
      ...(p.linked ? ['creator_linked'] : []),
    ],
  });
  const sortValue = (p: Position, sort: string) =>
    sort === 'volume' ? p.spent + p.received : sort === 'holding' ? p.held : p.pnl;

  return {
    /**
     * The detail's risk summary: shares of total supply held now (`balanceOf`, the model's
     * balances) by each label's wallets, their counts, and the creator's cluster's sold ÷ bought.
     */
    risk(address: string, totalSupply: bigint, balanceOf: (wallet: string) => bigint): Json {
      const token = tokens.get(address);
      const all = token ? [...token.positions.values()] : [];
      const part = (has: (p: Position) => boolean) => {
        const labelled = all.filter(has);
        const held = labelled.reduce((sum, p) => sum + balanceOf(p.wallet), 0n);
        return [Number((held * 10_000n) / totalSupply), labelled.length] as const;
      };
      const [sniperBps, snipers] = part((p) => p.sniper);
      const [bundlerBps, bundlers] = part((p) => p.bundler);
      const [linkedBps, linked] = part((p) => p.linked);
      // The creator's cluster sells as one: the creator and its creator_linked wallets.
      const cluster = all.filter(inCluster);
      const bought = cluster.reduce((sum, p) => sum + p.bought, 0n);
      const soldAll = cluster.reduce((sum, p) => sum + p.sold, 0n);
      // What it sold beyond its buys (tokens it received) does not count.
      const beyond = soldAll - bought;
      const sold = beyond > 0n ? bought : soldAll;
      return {
        sniper_bps: sniperBps,
        sniper_wallets: snipers,
        bundler_bps: bundlerBps,
        bundler_wallets: bundlers,
        creator_linked_bps: linkedBps,
        creator_linked_wallets: linked,
        creator_sold_bps: bought > 0n ? Number((sold * 10_000n) / bought) : 0,
      };
    },
    tokens: () => [...tokens.keys()],
    wallets: () => [...new Set([...tokens.values()].flatMap((t) => [...t.positions.keys()]))],
    /** `/tokens/{address}/traders?sort=…`: largest first, then wallet descending. */
    traders(address: string, sort: string): Json[] {
      const token = tokens.get(address);
      if (!token) return [];
      const price = prices(address);
      return [...token.positions.values()]
        .filter((p) => p.opened)
        .sort((a, b) => {
          const va = sortValue(a, sort);
          const vb = sortValue(b, sort);
          return va !== vb ? (vb > va ? 1 : -1) : a.wallet < b.wallet ? 1 : -1;
        })
        .map((p) => ({ wallet: p.wallet, ...json(p, price) }));
    },
    /** `/wallets/{address}/pnl`: by token address, every token it has a row of or holds. */
    pnl(wallet: string): Json[] {
      return [...tokens.entries()]
        .filter(([, t]) => {
          const p = t.positions.get(wallet);
          // Its pool takes the token in before the Graduated log names it; it holds, but it is
          // not a holder (as the curve, the burn address and the launchpad are not).
          return p !== undefined && (p.opened || (p.held > 0n && wallet !== t.pool));
        })
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([address, t]) => {
          const price = prices(address);
          return {
            token: address,
            price: String(price),
            ...json(t.positions.get(wallet) as Position, price),
          };
        });
    },
  };
}
