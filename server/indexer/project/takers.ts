import type { LabelParams, TraderOp, TraderToken } from './traders';

/**
 * Who took what a transaction bought (docs/api.md "Traders, PnL and labels"), over one range's
 * ops (a range is cut at block boundaries, so a transaction lies within one). Labels go by
 * effect, not by caller: a contract that buys and hands the tokens to several wallets makes
 * each of them a buyer, and the contract, left with nothing, none.
 */
export interface RangeTakers {
  /** `in` ops of tokens handed on in the transaction that bought them: their cost goes with them. */
  carried: Set<TraderOp>;
  /** The op at which a wallet became a taker of a transaction, and the labels that gives it. */
  labels: Map<TraderOp, { sniper: boolean; bundler: boolean }>;
}

/** One token in one transaction that bought some of it. */
interface Bought {
  block: number;
  /** Wallets that took part in a buy, each with the op at which it joined. */
  part: Map<string, TraderOp>;
  /** Each wallet's net change of the token over the transaction so far. */
  net: Map<string, bigint>;
}

const add = (net: Map<string, bigint>, wallet: string, delta: bigint) =>
  net.set(wallet, (net.get(wallet) ?? 0n) + delta);

/**
 * A transaction's takers of a token: the wallets that took part in a buy of it (each buy's
 * wallet, and every wallet that received the token in the transaction from one that took part
 * before) and end the transaction holding more of it than they began with. A taker in one of
 * the first `sniperBlocks` blocks is a sniper; the takers of a transaction with two or more of
 * them, and of the launch block when `bundlerWallets` or more of them are not the creator, are
 * bundlers. The creator is labelled neither (the caller keeps that rule).
 */
export function takersOf(
  ops: readonly TraderOp[],
  tokenOf: (token: string) => TraderToken | undefined,
  params: LabelParams,
): RangeTakers {
  const found: RangeTakers = { carried: new Set(), labels: new Map() };
  const buying = new Set<string>();
  for (const op of ops) if (op.kind === 'buy') buying.add(op.transaction);
  if (buying.size === 0) return found;
  // Transaction, then token: an airdrop's 100k transfers cost one set lookup each, no key built.
  const transactions = new Map<string, Map<string, Bought>>();
  for (const op of ops) {
    if (!buying.has(op.transaction)) continue;
    let byToken = transactions.get(op.transaction);
    if (!byToken) {
      byToken = new Map();
      transactions.set(op.transaction, byToken);
    }
    let bought = byToken.get(op.token);
    if (!bought) {
      bought = { block: -1, part: new Map(), net: new Map() };
      byToken.set(op.token, bought);
    }
    if (op.kind === 'buy') {
      bought.block = op.block;
      if (!bought.part.has(op.wallet)) bought.part.set(op.wallet, op);
      add(bought.net, op.wallet, op.tokens);
    } else if (op.kind === 'in') {
      add(bought.net, op.wallet, op.tokens);
      if (bought.part.has(op.from)) {
        found.carried.add(op);
        if (!bought.part.has(op.wallet)) bought.part.set(op.wallet, op);
      }
    } else add(bought.net, op.wallet, -op.tokens);
  }
  const launchTakers = new Map<string, TraderOp[]>();
  for (const byToken of transactions.values())
    for (const [address, bought] of byToken) {
      const token = tokenOf(address);
      if (!token || bought.part.size === 0) continue;
      const takers = [...bought.part].filter(([wallet]) => (bought.net.get(wallet) ?? 0n) > 0n);
      for (const [wallet, op] of takers) {
        if (wallet === token.creator) continue;
        found.labels.set(op, {
          sniper: bought.block - token.createdBlock < params.sniperBlocks,
          bundler: takers.length >= 2,
        });
        if (bought.block === token.createdBlock) {
          let list = launchTakers.get(address);
          if (!list) {
            list = [];
            launchTakers.set(address, list);
          }
          list.push(op);
        }
      }
    }
  for (const list of launchTakers.values()) {
    if (new Set(list.map((op) => op.wallet)).size < params.bundlerWallets) continue;
    for (const op of list) (found.labels.get(op) as { bundler: boolean }).bundler = true;
  }
  return found;
}
