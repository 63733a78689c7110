import { type Address, keccak256, toHex } from 'viem';
import { WAD } from '../../../shared/units';
import type { DevnetClient } from '../clients';
import type { LaunchpadDeployment } from '../deploy';
import { createLaunchpadActions, type Mined } from '../launchpad-actions';
import { createInsiders } from './insiders';
import type { ActionKind, Ledger, LedgerAction, LedgerSummary } from './ledger';
import { createRandom, type Random } from './random';

const adjectives = [
  'Moon',
  'Based',
  'Tiny',
  'Giga',
  'Sleepy',
  'Turbo',
  'Cosmic',
  'Golden',
  'Frozen',
  'Lucky',
  'Silent',
  'Neon',
];
const nouns = [
  'Frog',
  'Cat',
  'Doge',
  'Whale',
  'Pepe',
  'Otter',
  'Rocket',
  'Panda',
  'Goose',
  'Banana',
  'Wizard',
  'Shiba',
];
const exotic = [
  'ドージ Coin',
  'Café Olé',
  'Ünïcode Ape',
  'Σ Sigma',
  'Under_score',
  'dot.Token',
  'Hyphen-Cat',
];

interface SimToken {
  token: Address;
  creator: Address;
  /** Hot tokens are bought hard until they graduate, so every fixture has graduations. */
  hot: boolean;
  graduated: boolean;
}

export interface SimulatorOptions {
  client: DevnetClient;
  deployment: LaunchpadDeployment;
  seed: number;
  /** Advance chain time between actions (fixture mode), spreading activity over days. */
  advanceTime: boolean;
  /**
   * Unix seconds of the first action in fixture mode. With it, block times do not depend on how
   * long deployment took in wall-clock time, so the same seed gives the same ledger.
   */
  startTime?: number;
  creators?: number;
  traders?: number;
  /**
   * Share of steps that are insider moves (insiders.ts: funded snipers, bundles, moves then
   * sells, swaps for another), and of launches whose creator first funds a sniper. Default
   * 0.12 and 0.4; 0 leaves them out.
   */
  insiderRate?: number;
  fundedLaunchRate?: number;
}

/**
 * Seeded, deterministic launchpad activity: launches (some with a first buy), curve buys and
 * sells, transfers, curves that fill and graduate, and swaps both ways on graduated pools.
 * Same seed + same fresh chain = same transactions.
 */
export function createSimulator(options: SimulatorOptions) {
  const { client, deployment } = options;
  const random: Random = createRandom(options.seed);
  const actions = createLaunchpadActions(client, deployment);
  const stable = deployment.contracts.stable;
  const actor = (role: string, i: number) =>
    `0x${keccak256(toHex(`launchdex-sim:${options.seed}:${role}:${i}`)).slice(-40)}` as Address;
  const creators = Array.from({ length: options.creators ?? 8 }, (_, i) => actor('creator', i));
  const traders = Array.from({ length: options.traders ?? 40 }, (_, i) => actor('trader', i));
  const tokens: SimToken[] = [];
  const approved = new Set<string>();
  const ledgerActions: LedgerAction[] = [];
  const summary: LedgerSummary = {
    launches: 0,
    curveBuys: 0,
    curveSells: 0,
    transfers: 0,
    graduations: 0,
    dexSwaps: 0,
    insiders: 0,
  };
  const insiderRate = options.insiderRate ?? 0.12;
  const fundedLaunchRate = options.fundedLaunchRate ?? 0.4;
  let funded = false;
  let startBlock: number | undefined;

  async function fundActors() {
    if (funded) return;
    for (const address of [...creators, ...traders]) {
      await client.test.setBalance({ address, value: 1_000_000n * WAD });
    }
    if (insiderRate > 0) await insiders.setUp(creators[0] as Address);
    funded = true;
  }

  // The simulator's own clock: intermediate blocks (approvals, wraps) advance chain time by
  // wall-clock amounts, which must not leak into the recorded actions.
  let clock: bigint | undefined = options.startTime === undefined ? undefined : BigInt(options.startTime);

  async function nextTimestamp() {
    if (!options.advanceTime) return;
    const latest = (await client.getBlock({ blockTag: 'latest' })).timestamp;
    const next = (clock ?? latest) + BigInt(random.int(12, 900));
    clock = next > latest ? next : latest + 1n;
    await client.test.setNextBlockTimestamp({ timestamp: clock });
  }

  async function record(kind: ActionKind, actorAddress: Address, token: Address, mined: Mined) {
    if (inInsiderMove) summary.insiders++;
    const block = await client.getBlock({ blockNumber: mined.receipt.blockNumber });
    startBlock ??= Number(mined.receipt.blockNumber);
    for (const event of mined.events) {
      if (event.eventName === 'Graduated') {
        summary.graduations++;
        const graduated = tokens.find((t) => t.token.toLowerCase() === event.args.token.toLowerCase());
        if (graduated) graduated.graduated = true;
      }
    }
    ledgerActions.push({
      index: ledgerActions.length,
      kind,
      actor: actorAddress.toLowerCase() as Address,
      token: token.toLowerCase() as Address,
      transactionHash: mined.hash,
      blockNumber: Number(mined.receipt.blockNumber),
      blockTimestamp: Number(block.timestamp),
      logs: mined.events.map((event) => ({
        address: event.address.toLowerCase() as Address,
        eventName: event.eventName,
        logIndex: event.logIndex,
        transactionIndex: event.transactionIndex,
        args: Object.fromEntries(
          Object.entries(event.args).map(([key, value]) => [
            key,
            typeof value === 'boolean'
              ? value
              : typeof value === 'string'
                ? value.toLowerCase()
                : String(value),
          ]),
        ),
      })),
    });
  }

  let inInsiderMove = false;
  /** Runs an insider move, its actions counted as the summary's `insiders`. */
  async function asInsider<T>(move: () => Promise<T>): Promise<T> {
    inInsiderMove = true;
    try {
      return await move();
    } finally {
      inInsiderMove = false;
    }
  }
  const insiders = createInsiders({
    client,
    actions,
    random: createRandom(options.seed * 7_907 + 13),
    seed: options.seed,
    creators,
    traders,
    tokens,
    stable,
    nextTimestamp,
    record,
    ensureApproved,
  });
  const insiderRandom = createRandom(options.seed * 6_271 + 29);

  function tokenName(index: number) {
    if (index % 9 === 4) return exotic[Math.floor(index / 9) % exotic.length] as string;
    return `${random.pick(adjectives)} ${random.pick(nouns)}`;
  }

  async function launch() {
    const index = tokens.length;
    const creator = random.pick(creators);
    const name = tokenName(index);
    const letters = name.replace(/[^A-Za-z]/g, '').toUpperCase();
    const symbol =
      `${letters.slice(0, random.int(3, 5))}${index % 5 === 0 ? '' : index}`.slice(0, 16) || `TKN${index}`;
    const firstBuy = random.chance(0.5) ? random.bigint(WAD / 10n, 3n * WAD) : 0n;
    // An insider launch: the creator pays a fresh wallet (maybe through another) that snipes it.
    const sniper = insiderRandom.chance(fundedLaunchRate)
      ? await asInsider(() => insiders.fund(creator))
      : undefined;
    await nextTimestamp();
    const mined = await actions.launch({
      creator,
      name,
      symbol,
      supply: random.chance(0.8) ? 1_000_000_000n * WAD : random.bigint(1_000n, 10n ** 12n) * WAD,
      metadataHash: random.bytes32(),
      firstBuy,
    });
    tokens.push({ token: mined.token, creator, hot: index % 12 === 3, graduated: false });
    summary.launches++;
    if (firstBuy > 0n) summary.curveBuys++;
    await record('launch', creator, mined.token, mined);
    if (sniper) await asInsider(() => insiders.snipe(sniper, mined.token));
  }

  async function curveBuy(target: SimToken, value: bigint) {
    const trader = random.pick(traders);
    await nextTimestamp();
    const mined = await actions.buy({ trader, token: target.token, value });
    summary.curveBuys++;
    await record('buy', trader, target.token, mined);
  }

  async function curveSell(target: SimToken) {
    for (let attempt = 0; attempt < 5; attempt++) {
      const trader = random.pick(traders);
      const held = await actions.balanceOf(target.token, trader);
      if (held === 0n) continue;
      const amount = (held * BigInt(random.int(10, 100))) / 100n;
      if (amount === 0n) continue;
      await nextTimestamp();
      const mined = await actions.sell({ trader, token: target.token, amount });
      summary.curveSells++;
      await record('sell', trader, target.token, mined);
      return;
    }
    await curveBuy(target, random.bigint(WAD / 20n, 2n * WAD));
  }

  async function transfer(target: SimToken) {
    for (let attempt = 0; attempt < 5; attempt++) {
      const from = random.pick(traders);
      const held = await actions.balanceOf(target.token, from);
      if (held === 0n) continue;
      const to = random.pick(traders.filter((t) => t !== from));
      await nextTimestamp();
      const mined = await actions.transfer({
        from,
        token: target.token,
        to,
        amount: (held * BigInt(random.int(5, 60))) / 100n,
      });
      summary.transfers++;
      await record('transfer', from, target.token, mined);
      return;
    }
  }

  async function ensureApproved(owner: Address, token: Address) {
    const key = `${owner}:${token}`;
    if (approved.has(key)) return;
    await actions.approveRouter({ account: owner, token });
    approved.add(key);
  }

  async function dexSwap(target: SimToken) {
    const trader = random.pick(traders);
    const held = await actions.balanceOf(target.token, trader);
    const selling = held > 0n && random.chance(0.45);
    await ensureApproved(trader, selling ? target.token : stable);
    if (!selling) await actions.wrap({ account: trader, value: 2n * WAD });
    await nextTimestamp();
    const mined = selling
      ? await actions.swap({
          trader,
          tokenIn: target.token,
          tokenOut: stable,
          amountIn: (held * BigInt(random.int(5, 50))) / 100n,
        })
      : await actions.swap({
          trader,
          tokenIn: stable,
          tokenOut: target.token,
          amountIn: BigInt(random.int(50_000, 2_000_000)),
        });
    summary.dexSwaps++;
    await record(selling ? 'dex_sell' : 'dex_buy', trader, target.token, mined);
  }

  /** One random action; launches until `launchTarget` is reached. */
  async function step(launchTarget: number) {
    await fundActors();
    const open = tokens.filter((t) => !t.graduated);
    const graduated = tokens.filter((t) => t.graduated);
    if (tokens.length < launchTarget && (tokens.length === 0 || random.chance(0.12))) return launch();
    if (insiderRandom.chance(insiderRate) && (await asInsider(() => insiders.step()))) return;
    const roll = random.next();
    if (graduated.length > 0 && roll < 0.2) return dexSwap(random.pick(graduated));
    if (open.length === 0) return launch();
    const hot = open.filter((t) => t.hot);
    if (hot.length > 0 && roll < 0.3) return curveBuy(random.pick(hot), random.bigint(10n * WAD, 30n * WAD));
    // Recent launches attract most of the flow, as on a real launchpad.
    const target = random.chance(0.6) ? random.pick(open.slice(-6)) : random.pick(open);
    if (roll < 0.65) return curveBuy(target, random.bigint(WAD / 50n, 4n * WAD));
    if (roll < 0.88) return curveSell(target);
    return transfer(target);
  }

  return {
    tokens,
    summary,
    step,
    /** Insider moves made so far, by name (insiders.ts). */
    insiderMoves: insiders.counts,

    /**
     * Brings the simulator's view back to the chain after a reorg undid some of its transactions:
     * tokens whose contracts are gone are forgotten, graduations are read again, and approvals
     * are asked for again (the chain may have lost them). Balances are always read from the chain
     * and anvil keeps the accounts' nonces, so nothing else is remembered.
     */
    async reconcile(): Promise<{ forgotten: number }> {
      const kept: SimToken[] = [];
      for (const token of tokens) {
        const code = await client.getCode({ address: token.token });
        if (!code || code === '0x') continue;
        token.graduated = (await actions.curveState(token.token)).graduated;
        kept.push(token);
      }
      const forgotten = tokens.length - kept.length;
      tokens.splice(0, tokens.length, ...kept);
      approved.clear();
      await insiders.reconcile();
      return { forgotten };
    },

    /** Trades a token launched elsewhere (the creator studio) like one of its own launches. */
    adopt(token: Address, creator: Address) {
      tokens.push({ token, creator, hot: false, graduated: false });
    },

    /**
     * Fixture mode: `launches` launches within about `actions` actions, then every hot token is
     * driven to graduation and each graduated pool gets swaps both ways.
     */
    async runFixture(p: {
      launches: number;
      actions: number;
      onProgress?: (done: number, total: number) => void;
    }): Promise<Ledger> {
      for (let i = 0; i < p.actions || tokens.length < p.launches; i++) {
        await step(p.launches);
        p.onProgress?.(i + 1, p.actions);
      }
      for (const hot of tokens.filter((t) => t.hot && !t.graduated)) {
        while (!hot.graduated) await curveBuy(hot, 40n * WAD);
      }
      for (const graduated of tokens.filter((t) => t.graduated)) {
        for (let i = 0; i < 3; i++) await dexSwap(graduated);
      }
      return this.ledger();
    },

    ledger(): Ledger {
      const endBlock = ledgerActions.at(-1)?.blockNumber ?? startBlock ?? 0;
      return {
        version: 1,
        seed: options.seed,
        chainId: deployment.chainId,
        contracts: deployment.contracts,
        startBlock: deployment.startBlock,
        endBlock,
        actions: ledgerActions,
        summary: { ...summary },
      };
    },
  };
}
export type Simulator = ReturnType<typeof createSimulator>;
