import { setAt } from './row-book';

/**
 * Traders, PnL and labels (docs/api.md "Traders, PnL and labels"): pure. The fold records, per
 * range, what each (token, wallet) did in chain order ({@link TraderOp}); the writer applies
 * those steps onto the stored rows with {@link applyTraderOps}. The definitions live here once.
 */

/** Label parameters (config: SNIPER_BLOCKS, BUNDLER_WALLETS). */
export interface LabelParams {
  /** A first buy in block launch + 0 … launch + N − 1 is a sniper's. */
  sniperBlocks: number;
  /** At least K distinct wallets buying in the launch block make each of them a bundler. */
  bundlerWallets: number;
}

export const defaultLabelParams: LabelParams = { sniperBlocks: 3, bundlerWallets: 4 };

/** One thing a wallet did to its position in a token, in chain order. */
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
    }
  | { kind: 'in' | 'out'; token: string; wallet: string; tokens: bigint; fromCreator: boolean }
  /**
   * The wallet's tokens went into a pool swap (its input leg). The swap's trader is its
   * recipient, maybe another wallet: the payer's position does not move, but its row opens.
   */
  | { kind: 'pays'; token: string; wallet: string };

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

/**
 * The cost that leaves the position with `tokens` of it, at its average cost (floored). Tokens
 * beyond the position (a pool sell whose recipient is not the seller) take no cost.
 */
export function costOf(row: TraderRow, tokens: bigint): bigint {
  if (row.balance <= 0n) return 0n;
  if (tokens >= row.balance) return row.costBasis;
  return (row.costBasis * tokens) / row.balance;
}

/** A position never goes below zero: a sell or send beyond it (a pool sell whose recipient is not the seller) empties it. */
const less = (balance: bigint, tokens: bigint) => (tokens >= balance ? 0n : balance - tokens);

/** The token facts the labels need. */
export interface TraderToken {
  creator: string;
  createdBlock: number;
}

/**
 * Bundlers among one range's buys of each token: every buyer in the launch block when at least
 * K distinct wallets bought there, and every buyer of a transaction in which at least two
 * distinct wallets bought. Both sets lie within one range (a range is cut at block boundaries).
 */
export function bundlersOf(
  ops: readonly TraderOp[],
  tokenOf: (token: string) => TraderToken | undefined,
  params: LabelParams,
): Set<string> {
  const launchBuyers = new Map<string, Set<string>>();
  const txBuyers = new Map<string, Set<string>>();
  for (const op of ops) {
    if (op.kind !== 'buy') continue;
    if (tokenOf(op.token)?.createdBlock === op.block) setAt(launchBuyers, op.token).add(op.wallet);
    setAt(txBuyers, `${op.token} ${op.transaction}`).add(op.wallet);
  }
  const bundlers = new Set<string>();
  for (const [token, wallets] of launchBuyers)
    if (wallets.size >= params.bundlerWallets) for (const w of wallets) bundlers.add(`${token} ${w}`);
  for (const [key, wallets] of txBuyers)
    if (wallets.size >= 2) for (const w of wallets) bundlers.add(`${key.split(' ')[0]} ${w}`);
  return bundlers;
}

/** Where the ops of a range find each (token, wallet)'s row before it (null: none). */
export interface TraderSources {
  /** The stored row (not changed here: it is copied on first touch). */
  stored(token: string, wallet: string): TraderRow | null;
  /** The wallet's token balance before the range: where a row that opens starts. */
  heldBefore(token: string, wallet: string): bigint;
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
  const bundlers = bundlersOf(ops, tokenOf, params);
  const byToken = new Map<string, TokenWallets | null>();
  const touched: TraderRow[] = [];
  // Transfers of one token come in runs: its entry is looked up once per run.
  let current: TokenWallets | null = null;
  let currentAddress = '';
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
    const { token } = current;
    let row = current.rows.get(op.wallet);
    if (row === undefined) {
      const stored = sources.stored(op.token, op.wallet);
      row = stored ? { ...stored } : null;
      current.rows.set(op.wallet, row);
      if (row) touched.push(row);
    }
    if (row === null) {
      // Which (token, wallet)s have a row: a wallet that traded the token, paid a pool swap's
      // input, or received it from the creator (docs/api.md). A wallet that only received and
      // sent it by transfer has none: its position is its balance at zero cost, nothing else,
      // which `balances` already holds (a backfill of airdrops writes no trader rows). When its
      // row opens, it starts from that balance.
      if ('fromCreator' in op && !(op.kind === 'in' && op.fromCreator)) {
        const moved = current.moved.get(op.wallet) ?? 0n;
        current.moved.set(op.wallet, op.kind === 'in' ? moved + op.tokens : moved - op.tokens);
        continue;
      }
      row = emptyTrader(op.token, op.wallet, token.creator);
      row.balance = sources.heldBefore(op.token, op.wallet) + (current.moved.get(op.wallet) ?? 0n);
      current.rows.set(op.wallet, row);
      touched.push(row);
    }
    if (op.kind === 'pays') continue;
    if ('fromCreator' in op) {
      if (op.kind === 'out') {
        // Sent tokens take their average cost with them; nothing is realized.
        row.costBasis -= costOf(row, op.tokens);
        row.balance = less(row.balance, op.tokens);
      } else {
        // Received tokens cost nothing: the position grows, its cost does not.
        row.balance += op.tokens;
        if (op.fromCreator && !row.isCreator) row.creatorLinked = true;
      }
      continue;
    }
    if (op.kind === 'buy') {
      // The creator's own buys carry the `creator` label, not these.
      if (!row.isCreator && op.block - token.createdBlock < params.sniperBlocks) row.sniper = true;
      if (!row.isCreator && bundlers.has(`${op.token} ${op.wallet}`)) row.bundler = true;
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
      row.balance = less(row.balance, op.tokens);
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

/** Addresses that are not traders: a Transfer touching the curve or the pool is a trade's leg. */
export interface TransferParties {
  curve: string;
  pool: string | null;
  contracts: ReadonlySet<string>;
  creator: string;
}

/**
 * The ops of one Transfer: none for a trade's leg (to or from the curve or the pool; the Trade or
 * Swap carries it) but `pays` for a wallet's input to a pool swap, none for a mint; otherwise
 * `out` for a sending wallet and `in` for a receiving one (the burn address and launchpad
 * contracts are no wallets).
 */
export function transferOps(
  parties: TransferParties,
  transfer: { token: string; from: string; to: string; value: bigint },
  push: (op: TraderOp) => void,
): void {
  const { from, to, token, value } = transfer;
  if (from === parties.curve || to === parties.curve) return;
  if (parties.pool !== null && (from === parties.pool || to === parties.pool)) {
    if (to === parties.pool && from !== to && value !== 0n && !parties.contracts.has(from))
      push({ kind: 'pays', token, wallet: from });
    return;
  }
  if (value === 0n || from === to) return;
  if (!parties.contracts.has(from))
    push({ kind: 'out', token, wallet: from, tokens: value, fromCreator: false });
  if (!parties.contracts.has(to))
    push({ kind: 'in', token, wallet: to, tokens: value, fromCreator: from === parties.creator });
}
