import { type Address, keccak256, toHex } from 'viem';
import { WAD } from '../../../shared/units';
import type { DevnetClient } from '../clients';
import type { LaunchpadActions, Mined } from '../launchpad-actions';
import type { ActionKind } from './ledger';
import type { Random } from './random';

/** A token as the simulator trades it. */
export interface InsiderToken {
  token: Address;
  creator: Address;
  graduated: boolean;
}

export interface InsiderContext {
  client: DevnetClient;
  actions: LaunchpadActions;
  /** Its own stream: insider moves do not shift the draws of the rest of the simulation. */
  random: Random;
  seed: number;
  /** The simulator's own creators: tokens launched elsewhere (the creator studio) are not theirs to move. */
  creators: readonly Address[];
  traders: readonly Address[];
  tokens: readonly InsiderToken[];
  /** The pool's quote token (the wrapped stablecoin). */
  stable: Address;
  nextTimestamp(): Promise<void>;
  record(kind: ActionKind, actor: Address, token: Address, mined: Mined): Promise<void>;
  /** Approves the router for `token` once per owner (pool sells). */
  ensureApproved(owner: Address, token: Address): Promise<void>;
}

const NO_TOKEN = '0x0000000000000000000000000000000000000000' as Address;

/**
 * What insiders do, with known answers in docs/api.md "Traders, PnL and labels": creators paying
 * fresh wallets (one or two hops) that snipe their launch, a contract buying for several wallets
 * in one transaction, tokens moved to a second wallet and sold there (by the creator: a dump
 * through a linked wallet), and pool swaps paid by one wallet for another. The simulator mixes
 * them into its steps, live and in chaos runs, so that every label meets reorgs and kills.
 */
export function createInsiders(ctx: InsiderContext) {
  const { actions, random } = ctx;
  let bundler: Address | undefined;
  let fresh = 0;
  const moves = ['bundle', 'dump', 'own', 'pay-for-other'] as const;
  type Move = (typeof moves)[number];
  let turn = 0;
  const counts: Record<string, number> = {};
  const freshWallet = () =>
    `0x${keccak256(toHex(`launchdex-sim:${ctx.seed}:funded:${fresh++}`)).slice(-40)}` as Address;

  const held = (token: Address, owner: Address) => actions.balanceOf(token, owner);
  /** `n` distinct traders (a partial Fisher–Yates shuffle). */
  const someTraders = (n: number) => {
    const pool = [...ctx.traders];
    for (let i = 0; i < n; i++) {
      const j = random.int(i, pool.length - 1);
      [pool[i], pool[j]] = [pool[j] as Address, pool[i] as Address];
    }
    return pool.slice(0, n);
  };

  const api = {
    /** Deploys the bundling contract (the simulator's first step, before any reorg can reach it). */
    async setUp(deployer: Address) {
      bundler = await actions.deployBundleBuyer(deployer);
    },

    /** After a reorg: the contract is deployed again if the chain lost it. */
    async reconcile() {
      if (!bundler) return;
      const code = await ctx.client.getCode({ address: bundler });
      if (!code || code === '0x') bundler = undefined;
    },

    /**
     * Before `creator` launches: pays a fresh wallet, which may pay another (two hops); the last
     * one is returned to snipe the launch (`snipe`).
     */
    async fund(creator: Address): Promise<Address> {
      let payer = creator;
      let wallet = payer;
      for (let hop = random.int(1, 2); hop > 0; hop--) {
        wallet = freshWallet();
        await ctx.nextTimestamp();
        const mined = await actions.sendNative({ from: payer, to: wallet, value: BigInt(hop + 1) * WAD });
        await ctx.record('fund', payer, NO_TOKEN, mined);
        payer = wallet;
      }
      return wallet;
    },

    /** The funded wallet buys the creator's new token, the block after its launch. */
    async snipe(wallet: Address, token: Address) {
      await ctx.nextTimestamp();
      const mined = await actions.buy({ trader: wallet, token, value: WAD / 5n });
      await ctx.record('buy', wallet, token, mined);
      counts['funded-snipe'] = (counts['funded-snipe'] ?? 0) + 1;
    },

    /** Moves made so far, by name (funded snipers counted at `snipe`). */
    counts,

    /**
     * One insider move on the tokens so far, the moves taken in turn (so that a short run makes
     * each of them), skipping those that do not apply yet; false when none does.
     */
    async step(): Promise<boolean> {
      for (let tried = 0; tried < moves.length; tried++) {
        const move = moves[turn % moves.length] as Move;
        turn++;
        if (await tryMove(move)) {
          counts[move] = (counts[move] ?? 0) + 1;
          return true;
        }
      }
      return false;
    },
  };
  return api;

  async function tryMove(move: Move): Promise<boolean> {
    const open = ctx.tokens.filter((t) => !t.graduated);
    const ours = open.filter((t) => ctx.creators.includes(t.creator));
    const graduated = ctx.tokens.filter((t) => t.graduated);
    if (move === 'bundle' && open.length > 0) {
      if (!bundler) return false;
      const target = random.pick(open.slice(-4));
      const recipients = someTraders(random.int(2, 4));
      const payer =
        random.chance(0.5) && ctx.creators.includes(target.creator)
          ? target.creator
          : random.pick(ctx.traders);
      await ctx.nextTimestamp();
      const mined = await actions.bundleBuy({
        account: payer,
        bundler,
        token: target.token,
        recipients,
        value: random.bigint(WAD / 10n, WAD),
      });
      await ctx.record('bundle', payer, target.token, mined);
      return true;
    }
    if (move === 'dump' || move === 'own') {
      // Tokens moved to another wallet and half of them sold there at once: by the creator
      // (a dump through a linked wallet, its cost carried) or by a trader (zero cost).
      const candidates = move === 'dump' ? ours : open;
      for (let attempt = 0; attempt < 4 && candidates.length > 0; attempt++) {
        const target = random.pick(candidates);
        const from = move === 'dump' ? target.creator : random.pick(ctx.traders);
        const amount = ((await held(target.token, from)) * BigInt(random.int(20, 60))) / 100n;
        if (amount < 2n) continue;
        const to = random.pick(ctx.traders.filter((t) => t !== from));
        await ctx.nextTimestamp();
        const moved = await actions.transfer({ from, token: target.token, to, amount });
        await ctx.record('transfer', from, target.token, moved);
        await ctx.nextTimestamp();
        const sold = await actions.sell({ trader: to, token: target.token, amount: amount / 2n });
        await ctx.record('sell', to, target.token, sold);
        return true;
      }
      return false;
    }
    if (move === 'pay-for-other' && graduated.length > 0) {
      const target = random.pick(graduated);
      const [payer, recipient] = someTraders(2) as [Address, Address];
      const amount = ((await held(target.token, payer)) * BigInt(random.int(10, 50))) / 100n;
      const { stable } = ctx;
      if (amount > 0n && random.chance(0.6)) {
        await ctx.ensureApproved(payer, target.token);
        await ctx.nextTimestamp();
        const mined = await actions.swap({
          trader: payer,
          tokenIn: target.token,
          tokenOut: stable,
          amountIn: amount,
          recipient,
        });
        await ctx.record('dex_sell', payer, target.token, mined);
      } else {
        await ctx.ensureApproved(payer, stable);
        await actions.wrap({ account: payer, value: WAD });
        await ctx.nextTimestamp();
        const mined = await actions.swap({
          trader: payer,
          tokenIn: stable,
          tokenOut: target.token,
          amountIn: BigInt(random.int(50_000, 900_000)),
          recipient,
        });
        await ctx.record('dex_buy', payer, target.token, mined);
      }
      return true;
    }
    return false;
  }
}
export type Insiders = ReturnType<typeof createInsiders>;
