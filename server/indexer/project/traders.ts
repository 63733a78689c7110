import { takersOf } from './takers';

/**
 * Traders, PnL and labels (docs/api.md "Traders, PnL and labels"): pure. The fold records, per
 * range, what each (token, wallet) did in chain order ({@link TraderOp}); the writer applies
 * those steps onto the stored rows with {@link applyTraderOps}. The definitions live here once.
 */

/** Label parameters (config: SNIPER_BLOCKS, BUNDLER_WALLETS, FUNDING_HOPS, FUNDING_WINDOW_BLOCKS). */
export interface LabelParams {
  /** A taker in block launch + 0 … launch + N − 1 is a sniper. */
  sniperBlocks: number;
  /** At least K distinct takers but the creator in the launch block make each a bundler. */
  bundlerWallets: number;
  /** Longest chain of native transfers from the creator that funds a wallet (0: funding is not read). */
  fundingHops: number;
  /** Funding counts in the blocks from a first buy's block − this to the buy. */
  fundingWindowBlocks: number;
}

export const defaultLabelParams: LabelParams = {
  sniperBlocks: 3,
  bundlerWallets: 4,
  fundingHops: 2,
  fundingWindowBlocks: 300,
};

/**
 * One thing a wallet did to its position, in chain order. A trade's wallet is the chain's: the
 * one its tokens went to (a buy) or came from (a sell), which on the pool may not be the swap's
 * recipient (the fold takes it from the trade's token Transfer: {@link transferOps}).
 */
export type TraderOp =
  | {
      kind: 'buy' | 'sell';
      token: string;
      wallet: string;
      tokens: bigint;
      /** What the trader paid (gross, buys) or received (net, sells), 18 decimals. */
      quote: bigint;
      block: number;
      timestamp: number;
      transaction: string;
      transactionIndex: number;
    }
  /**
   * A transfer's legs: `out` of its sending wallet, then at once `in` of its receiving one (only
   * the side that is a wallet; `from` is the sender, wallet or not).
   */
  | { kind: 'out'; token: string; wallet: string; tokens: bigint; transaction: string }
  | { kind: 'in'; token: string; wallet: string; tokens: bigint; from: string; transaction: string };

/** A `traders` row as the writer keeps it. */
export interface TraderRow {
  token: string;
  wallet: string;
  bought: bigint;
  sold: bigint;
  quoteSpent: bigint;
  quoteReceived: bigint;
  balance: bigint;
  costBasis: bigint;
  realizedPnl: bigint;
  buys: number;
  sells: number;
  firstTradeBlock: number | null;
  firstTradeAt: number | null;
  lastTradeBlock: number | null;
  lastTradeAt: number | null;
  isCreator: boolean;
  sniper: boolean;
  bundler: boolean;
  creatorLinked: boolean;
}

export function emptyTrader(token: string, wallet: string, creator: string): TraderRow {
  return {
    token,
    wallet,
    bought: 0n,
    sold: 0n,
    quoteSpent: 0n,
    quoteReceived: 0n,
    balance: 0n,
    costBasis: 0n,
    realizedPnl: 0n,
    buys: 0,
    sells: 0,
    firstTradeBlock: null,
    firstTradeAt: null,
    lastTradeBlock: null,
    lastTradeAt: null,
    isCreator: wallet === creator,
    sniper: false,
    bundler: false,
    creatorLinked: false,
  };
}

/** The cost that leaves the position with `tokens` of it, at its average cost (floored). */
export function costOf(row: TraderRow, tokens: bigint): bigint {
  if (row.balance <= 0n) return 0n;
  if (tokens >= row.balance) return row.costBasis;
  return (row.costBasis * tokens) / row.balance;
}

/** The token facts the labels need. */
export interface TraderToken {
  creator: string;
  createdBlock: number;
}

/** Where the ops of a range find each (token, wallet)'s row before it (null: none). */
export interface TraderSources {
  /** The stored row (not changed here: it is copied on first touch). */
  stored(token: string, wallet: string): TraderRow | null;
  /** The wallet's token balance before the range: where a row that opens starts. */
  heldBefore(token: string, wallet: string): bigint;
  /**
   * Whether the creator funded the wallet shortly before its first buy (funding.ts); asked at
   * a wallet's first buy only. Absent: no funding is known.
   */
  fundedAtFirstBuy?(token: string, wallet: string): boolean;
}

/** One token's wallets as a range's ops meet them. */
interface TokenWallets {
  token: TraderToken;
  /** Rows in this range (copies), or null for a wallet seen without one. */
  rows: Map<string, TraderRow | null>;
  /** What rowless wallets received minus what they sent in this range so far. */
  moved: Map<string, bigint>;
}

/**
 * Applies a range's ops, in chain order, onto the rows before it (`sources.stored`, copied on
 * first touch; rows open as the comment inside says, from the wallet's balance before the range
 * plus what it received and sent in the range before). Returns the rows touched, as they end.
 * Wallets are looked up per token (no composite key per op: a backfill's airdrop is 100k ops).
 */
export function applyTraderOps(
  ops: readonly TraderOp[],
  tokenOf: (token: string) => TraderToken | undefined,
  params: LabelParams,
  sources: TraderSources,
): TraderRow[] {
  const takers = takersOf(ops, tokenOf, params);
  const byToken = new Map<string, TokenWallets | null>();
  const touched: TraderRow[] = [];
  // Transfers of one token come in runs: its entry is looked up once per run.
  let current: TokenWallets | null = null;
  let currentAddress = '';
  // The `out` just applied (changed in place: an airdrop is 100k of them): the `in` after it is
  // the same transfer's other side.
  const sent = { wallet: '', cost: 0n, cluster: false };
  for (const op of ops) {
    if (op.token !== currentAddress) {
      currentAddress = op.token;
      let entry = byToken.get(op.token);
      if (entry === undefined) {
        const token = tokenOf(op.token);
        entry = token ? { token, rows: new Map(), moved: new Map() } : null;
        byToken.set(op.token, entry);
      }
      current = entry;
    }
    if (current === null) continue;
    const { token, rows, moved } = current;
    let row = rows.get(op.wallet);
    if (row === undefined) {
      const stored = sources.stored(op.token, op.wallet);
      row = stored ? { ...stored } : null;
      rows.set(op.wallet, row);
      if (row) touched.push(row);
    }
    // Which (token, wallet)s have a row: a wallet that traded the token or received it within
    // the creator's cluster (docs/api.md). A wallet that only received and sent it otherwise
    // has none: its position is its balance at zero cost, nothing else, which `balances`
    // already holds (a backfill of airdrops writes no trader rows). When its row opens, it
    // starts from that balance.
    let within = false;
    if (op.kind === 'out') {
      // Sent tokens take their average cost with them; nothing is realized.
      sent.wallet = op.wallet;
      sent.cost = row ? costOf(row, op.tokens) : 0n;
      sent.cluster = op.wallet === token.creator || row?.creatorLinked === true;
      if (row) {
        row.costBasis -= sent.cost;
        row.balance -= op.tokens;
        continue;
      }
    } else if (op.kind === 'in') {
      // Within the creator's cluster (the creator and its linked wallets), and from a wallet
      // that bought them in this very transaction, the cost goes with the tokens; from anyone
      // else they cost nothing (docs/api.md says why).
      within =
        op.from === token.creator ||
        takers.carried.has(op) ||
        (sent.cluster &&
          sent.wallet === op.from &&
          (op.wallet === token.creator || row?.creatorLinked === true));
    }
    if (row === null) {
      if (op.kind === 'out' || (op.kind === 'in' && !within)) {
        const before = moved.get(op.wallet) ?? 0n;
        moved.set(op.wallet, op.kind === 'in' ? before + op.tokens : before - op.tokens);
        continue;
      }
      row = emptyTrader(op.token, op.wallet, token.creator);
      row.balance = sources.heldBefore(op.token, op.wallet) + (moved.get(op.wallet) ?? 0n);
      rows.set(op.wallet, row);
      touched.push(row);
    }
    if (op.kind === 'out') continue;
    // The creator's own buys carry the `creator` label, not these (takersOf leaves it out).
    const labels = takers.labels.get(op);
    if (labels?.sniper) row.sniper = true;
    if (labels?.bundler) row.bundler = true;
    if (op.kind === 'in') {
      row.balance += op.tokens;
      if (within && sent.wallet === op.from) row.costBasis += sent.cost;
      if (op.from === token.creator && !row.isCreator) row.creatorLinked = true;
      continue;
    }
    if (op.kind === 'buy') {
      if (row.buys === 0 && !row.isCreator && sources.fundedAtFirstBuy?.(op.token, op.wallet))
        row.creatorLinked = true;
      row.bought += op.tokens;
      row.quoteSpent += op.quote;
      row.costBasis += op.quote;
      row.balance += op.tokens;
      row.buys += 1;
    } else {
      const cost = costOf(row, op.tokens);
      row.realizedPnl += op.quote - cost;
      row.costBasis -= cost;
      row.sold += op.tokens;
      row.quoteReceived += op.quote;
      row.balance -= op.tokens;
      row.sells += 1;
    }
    if (row.firstTradeBlock === null) {
      row.firstTradeBlock = op.block;
      row.firstTradeAt = op.timestamp;
    }
    row.lastTradeBlock = op.block;
    row.lastTradeAt = op.timestamp;
  }
  return touched;
}

/** Addresses that are no wallets: the markets (the curve, the pool) and the contracts. */
export interface TransferParties {
  curve: string;
  pool: string | null;
  contracts: ReadonlySet<string>;
}

/**
 * The ops of one Transfer: `out` for a sending wallet, then `in` for a receiving one (the curve,
 * the pool, the burn address and launchpad contracts are no wallets; a mint comes from the zero
 * address). A trade's token leg (its Transfer between a market and a wallet) is pushed like any:
 * the fold puts the trade in its place when the trade's log follows (fold.ts), so a trade moves
 * the wallet whose tokens moved, and a Transfer to a market without a trade (a donation) stays
 * a plain send. Returns whether the transfer is such a leg.
 */
export function transferOps(
  parties: TransferParties,
  transfer: { token: string; from: string; to: string; value: bigint; transactionHash: string },
  push: (op: TraderOp) => void,
): boolean {
  const { from, to, token, value, transactionHash: transaction } = transfer;
  if (value === 0n || from === to) return false;
  const { curve, pool, contracts } = parties;
  const fromMarket = from === curve || from === pool;
  const toMarket = to === curve || to === pool;
  const fromWallet = !fromMarket && !contracts.has(from);
  const toWallet = !toMarket && !contracts.has(to);
  if (fromWallet) push({ kind: 'out', token, wallet: from, tokens: value, transaction });
  if (toWallet) push({ kind: 'in', token, wallet: to, tokens: value, from, transaction });
  return (fromMarket && toWallet) || (toMarket && fromWallet);
}
