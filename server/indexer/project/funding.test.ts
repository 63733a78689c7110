import { describe, expect, it } from 'vitest';
import { createRandom } from '../../chain/simulator/random';
import { type FirstBuy, type FundingBlock, fundedBefore, type NativeTransfer } from './funding';

const creator = '0x00000000000000000000000000000000000000c0';
const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const params = { fundingHops: 2, fundingWindowBlocks: 10 };

/** A chain whose block n holds `transfers[n]` (blocks without an entry hold none). */
function chainOf(transfers: Record<number, [string, string][]>) {
  const blocks = new Map<number, FundingBlock>();
  return (n: number): FundingBlock => {
    let block = blocks.get(n);
    if (!block) {
      const list: NativeTransfer[] = (transfers[n] ?? []).map(([from, to], index) => ({ from, to, index }));
      block = {
        number: n,
        hash: `0xh${n}`,
        parentHash: `0xh${n - 1}`,
        transfers: list,
      };
      blocks.set(n, block);
    }
    return block;
  };
}

const buyBy = (who: string, block: number, transactionIndex = 5): FirstBuy => ({
  token: '0xtoken',
  wallet: who,
  creator,
  block,
  transactionIndex,
});

describe('funded by the creator before the first buy', () => {
  const [a, b, c] = [wallet(1), wallet(2), wallet(3)];

  it('exactly N hops are funded, N + 1 are not', () => {
    const blockAt = chainOf({ 95: [[creator, a]], 96: [[a, b]], 97: [[b, c]] });
    expect(fundedBefore(buyBy(a, 100), params, blockAt)).toBe(true);
    expect(fundedBefore(buyBy(b, 100), params, blockAt)).toBe(true);
    expect(fundedBefore(buyBy(c, 100), params, blockAt)).toBe(false);
    expect(fundedBefore(buyBy(c, 100), { ...params, fundingHops: 3 }, blockAt)).toBe(true);
    expect(fundedBefore(buyBy(a, 100), { ...params, fundingHops: 0 }, blockAt)).toBe(false);
  });

  it('the window: funding in block B − W counts, in B − W − 1 does not', () => {
    const inside = chainOf({ 90: [[creator, a]] });
    const outside = chainOf({ 89: [[creator, a]] });
    expect(fundedBefore(buyBy(a, 100), params, inside)).toBe(true);
    expect(fundedBefore(buyBy(a, 100), params, outside)).toBe(false);
  });

  it('hops go forward in time: a wallet passes on only what came after it was funded', () => {
    // b was paid by a before the creator funded a: no chain from the creator to b.
    const blockAt = chainOf({ 95: [[a, b]], 96: [[creator, a]] });
    expect(fundedBefore(buyBy(b, 100), params, blockAt)).toBe(false);
    // In one block, by transaction order.
    const sameBlock = chainOf({
      95: [
        [creator, a],
        [a, b],
      ],
    });
    expect(fundedBefore(buyBy(b, 100), params, sameBlock)).toBe(true);
    const reversed = chainOf({
      95: [
        [a, b],
        [creator, a],
      ],
    });
    expect(fundedBefore(buyBy(b, 100), params, reversed)).toBe(false);
  });

  it("in the buy's own block only the transactions before the buy count", () => {
    const blockAt = chainOf({
      100: [
        [creator, a],
        [creator, b],
      ],
    });
    // The transfers are the block's transactions 0 and 1: a buy at index 1 follows the first only.
    expect(fundedBefore(buyBy(a, 100, 1), params, blockAt)).toBe(true);
    expect(fundedBefore(buyBy(b, 100, 1), params, blockAt)).toBe(false);
    expect(fundedBefore(buyBy(b, 100, 2), params, blockAt)).toBe(true);
  });

  it('a shorter way found later still counts: the fewest hops a wallet was reached in', () => {
    // c is 3 hops away at first, then the creator pays b directly, which pays c: 2 hops.
    const blockAt = chainOf({
      91: [[creator, a]],
      92: [[a, b]],
      93: [[b, c]],
      94: [[creator, b]],
      95: [[b, c]],
    });
    expect(fundedBefore(buyBy(c, 100), params, blockAt)).toBe(true);
    const without = chainOf({ 91: [[creator, a]], 92: [[a, b]], 93: [[b, c]], 94: [[creator, b]] });
    expect(fundedBefore(buyBy(c, 100), params, without)).toBe(false);
  });

  it('the creator itself is never funded, and a stranger is not', () => {
    const blockAt = chainOf({ 95: [[creator, a]] });
    expect(fundedBefore({ ...buyBy(creator, 100) }, params, blockAt)).toBe(false);
    expect(fundedBefore(buyBy(wallet(9), 100), params, blockAt)).toBe(false);
  });

  it('equals the walk forwards from the creator on random chains (the rule as first written)', () => {
    const random = createRandom(47);
    for (let round = 0; round < 1_000; round++) {
      // A few wallets passing coin among themselves and with the creator, over a window's blocks:
      // sparse chains and dense ones (a wallet searched again, with an earlier bound, on another way).
      const wallets = [creator, ...Array.from({ length: 2 + random.int(0, 6) }, (_, i) => wallet(i + 1))];
      const density = random.int(1, 6);
      const transfers: Record<number, [string, string][]> = {};
      for (let n = 80; n <= 100; n++)
        transfers[n] = Array.from({ length: random.int(0, density) }, () => [
          wallets[random.int(0, wallets.length - 1)] as string,
          wallets[random.int(0, wallets.length - 1)] as string,
        ]);
      const blockAt = chainOf(transfers);
      const hops = { ...params, fundingHops: random.int(1, 3) };
      for (const who of wallets)
        for (const index of [0, 1, 3])
          expect(
            fundedBefore(buyBy(who, 100, index), hops, blockAt),
            `round ${round}, ${who} at index ${index}`,
          ).toBe(walkedForwards(buyBy(who, 100, index), hops, blockAt));
    }
  });
});

/** The rule walked forwards from the creator through every transfer of the window, in chain order. */
function walkedForwards(buy: FirstBuy, p: typeof params, blockAt: (n: number) => FundingBlock): boolean {
  const reached = new Map<string, number>([[buy.creator, 0]]);
  for (let n = Math.max(0, buy.block - p.fundingWindowBlocks); n <= buy.block; n++)
    for (const t of blockAt(n).transfers) {
      if (n === buy.block && t.index >= buy.transactionIndex) break;
      const hops = reached.get(t.from);
      if (hops === undefined || hops >= p.fundingHops) continue;
      const before = reached.get(t.to);
      if (before === undefined || before > hops + 1) reached.set(t.to, hops + 1);
    }
  return buy.wallet !== buy.creator && reached.has(buy.wallet);
}
