import type { Address } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatedChain, startTestChain, type TestChain } from '../../../test/chain';
import type { Ledger } from './ledger';
import { createSimulator } from './simulator';

const chains: TestChain[] = [];

async function runFixture(
  seed: number,
  launches: number,
  actions: number,
): Promise<{ chain: TestChain; ledger: Ledger }> {
  const fixture = await startSimulatedChain({ seed, launches, actions });
  chains.push(fixture.chain);
  return fixture;
}

afterAll(async () => {
  await Promise.all(chains.map((chain) => chain.stop()));
});

describe('activity simulator', () => {
  it('fixture with 50 launches yields launches, trades both ways, transfers, >= 3 graduations and DEX swaps', async () => {
    const { chain, ledger } = await runFixture(1, 50, 500);
    const s = ledger.summary;
    expect(s.launches).toBe(50);
    expect(s.graduations).toBeGreaterThanOrEqual(3);
    expect(s.dexSwaps).toBeGreaterThan(0);
    expect(s.curveBuys).toBeGreaterThan(100);
    expect(s.curveSells).toBeGreaterThan(0);
    expect(s.transfers).toBeGreaterThan(0);
    expect(ledger.actions.some((a) => a.kind === 'dex_buy')).toBe(true);
    expect(ledger.actions.some((a) => a.kind === 'dex_sell')).toBe(true);
    // Insiders (insiders.ts), each with the label its pattern should earn (docs/api.md).
    expect(s.insiders).toBeGreaterThan(10);
    const kinds = ledger.actions.map((a) => a.kind);
    // Funded snipers: a payment to a fresh wallet, which buys the next launch right after it.
    const paid = new Set(ledger.actions.filter((a) => a.kind === 'fund').map((a) => a.logs.length));
    expect(paid).toEqual(new Set([0]));
    const snipes = ledger.actions.filter(
      (a, i) =>
        a.kind === 'buy' && kinds[i - 1] === 'launch' && !kinds.slice(0, i).every((k) => k !== 'fund'),
    );
    expect(snipes.length).toBeGreaterThan(0);
    // Bundles: one transaction whose bought tokens went on to two or more wallets.
    const bundles = ledger.actions.filter((a) => a.kind === 'bundle');
    expect(bundles.length).toBeGreaterThan(0);
    for (const bundle of bundles)
      expect(
        bundle.logs.filter((l) => l.eventName === 'Transfer').length,
        bundle.transactionHash,
      ).toBeGreaterThanOrEqual(3);
    // Tokens moved to another wallet and sold there at once.
    expect(kinds.some((k, i) => k === 'transfer' && kinds[i + 1] === 'sell')).toBe(true);
    // Pool swaps paid by one wallet for another: the Swap's recipient is not its sender.
    expect(
      ledger.actions.some((a) =>
        a.logs.some(
          (l) => l.eventName === 'Swap' && l.args.recipient !== a.actor && l.args.recipient !== undefined,
        ),
      ),
    ).toBe(true);
    expect(
      ledger.actions
        .filter((a) => a.kind === 'launch')
        .some((a) => a.logs.some((l) => l.eventName === 'Trade')),
    ).toBe(true);
    // Activity is spread over time, so candles of every interval have something to show.
    const span = (ledger.actions.at(-1)?.blockTimestamp ?? 0) - (ledger.actions[0]?.blockTimestamp ?? 0);
    expect(span).toBeGreaterThan(24 * 3600);

    // The ledger is complete: replaying its Transfer logs reproduces every on-chain balance.
    const launched = new Set(ledger.actions.filter((a) => a.kind === 'launch').map((a) => a.token));
    const balances = new Map<string, bigint>();
    for (const action of ledger.actions) {
      for (const log of action.logs) {
        if (log.eventName !== 'Transfer' || !launched.has(log.address)) continue;
        const value = BigInt(log.args.value as string);
        const from = `${log.address}:${log.args.from}`;
        const to = `${log.address}:${log.args.to}`;
        balances.set(from, (balances.get(from) ?? 0n) - value);
        balances.set(to, (balances.get(to) ?? 0n) + value);
      }
    }
    let checked = 0;
    for (const [key, expected] of balances) {
      const [token, owner] = key.split(':') as [Address, Address];
      if (owner === '0x0000000000000000000000000000000000000000') continue;
      expect(await chain.actions.balanceOf(token, owner), key).toBe(expected);
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  }, 180_000);

  it('is deterministic: the same seed on a fresh chain gives the same ledger', async () => {
    const first = await runFixture(7, 12, 80);
    const second = await runFixture(7, 12, 80);
    expect(second.ledger).toEqual(first.ledger);
    expect(first.ledger.summary.graduations).toBeGreaterThanOrEqual(1);
    const other = await runFixture(8, 12, 80);
    expect(other.ledger.actions.map((a) => a.transactionHash)).not.toEqual(
      first.ledger.actions.map((a) => a.transactionHash),
    );
  });

  it('keeps trading after a reorg undoes its launches: reconcile forgets what the chain lost', async () => {
    const chain = await startTestChain();
    chains.push(chain);
    const simulator = createSimulator({
      client: chain.client,
      deployment: chain.deployment,
      seed: 3,
      advanceTime: false,
    });
    for (let i = 0; simulator.tokens.length < 3 || i < 10; i++) await simulator.step(3);
    const kept = simulator.tokens.slice(0, -1).map((token) => token.token);
    const last = simulator.tokens.at(-1)?.token as Address;
    // Replace every block since the last launch: its token never existed on the new chain.
    const lastLaunch = simulator
      .ledger()
      .actions.filter((action) => action.kind === 'launch')
      .at(-1);
    const launchedAt = BigInt(lastLaunch?.blockNumber ?? 0);
    const head = await chain.client.getBlockNumber();
    await chain.client.request({
      method: 'anvil_reorg' as never,
      params: [Number(head - launchedAt) + 1, []] as never,
    });
    expect(await chain.client.getCode({ address: last })).toBeUndefined();
    expect(await simulator.reconcile()).toEqual({ forgotten: 1 });
    expect(simulator.tokens.map((token) => token.token)).toEqual(kept);
    // Steps go on without one failure, trading the tokens that exist.
    const before = simulator.ledger().actions.length;
    for (let i = 0; i < 20; i++) await simulator.step(3);
    const after = simulator.ledger().actions.slice(before);
    expect(after.length).toBeGreaterThan(10);
    // Every token it trades exists (a new launch may take the undone one's address again: the
    // factory's nonce went back with the reorg).
    for (const { token } of simulator.tokens)
      expect(await chain.client.getCode({ address: token }), token).not.toBeUndefined();
  }, 120_000);
});
