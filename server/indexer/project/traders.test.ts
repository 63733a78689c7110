import { describe, expect, it } from 'vitest';
import {
  applyTraderOps,
  emptyTrader,
  type LabelParams,
  type TraderOp,
  type TraderRow,
  transferOps,
} from './traders';

const token = '0x00000000000000000000000000000000000000aa';
const creator = '0x00000000000000000000000000000000000000c0';
const curve = '0x00000000000000000000000000000000000000cc';
const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const params: LabelParams = { sniperBlocks: 3, bundlerWallets: 4, fundingHops: 2, fundingWindowBlocks: 20 };
const launchBlock = 100;
const tokenOf = (address: string) => (address === token ? { creator, createdBlock: launchBlock } : undefined);

let tx = 0;
const trade = (
  kind: 'buy' | 'sell',
  who: string,
  tokens: bigint,
  quote: bigint,
  block = 200,
  transaction?: string,
): TraderOp => ({
  kind,
  token,
  wallet: who,
  tokens,
  quote,
  block,
  timestamp: block * 2,
  transaction: transaction ?? `0xt${tx++}`,
  transactionIndex: 0,
});
const received = (who: string, tokens: bigint, from = wallet(999), transaction = '0xtransfer'): TraderOp => ({
  kind: 'in',
  token,
  wallet: who,
  tokens,
  from,
  transaction,
});
const sent = (who: string, tokens: bigint, transaction = '0xtransfer'): TraderOp => ({
  kind: 'out',
  token,
  wallet: who,
  tokens,
  transaction,
});
/** A transfer between wallets, as transferOps pushes it. */
const moved = (from: string, to: string, tokens: bigint, transaction?: string): TraderOp[] => [
  sent(from, tokens, transaction),
  received(to, tokens, from, transaction),
];

function run(
  ops: TraderOp[],
  rows = new Map<string, TraderRow>(),
  heldBefore = (_token: string, _wallet: string) => 0n,
) {
  const touched = applyTraderOps(ops, tokenOf, params, {
    stored: (t, w) => rows.get(`${t} ${w}`) ?? null,
    heldBefore,
  });
  for (const row of touched) rows.set(`${row.token} ${row.wallet}`, row);
  return (who: string) => rows.get(`${token} ${who}`) as TraderRow;
}

describe('average-cost PnL', () => {
  it('realizes a sell at the average cost of the position', () => {
    const a = wallet(1);
    const row = run([
      trade('buy', a, 100n, 1000n),
      trade('buy', a, 100n, 3000n),
      trade('sell', a, 50n, 1500n),
    ])(a);
    // Average cost 20 a token: 50 tokens cost 1000, sold for 1500.
    expect(row.realizedPnl).toBe(500n);
    expect(row.costBasis).toBe(3000n);
    expect(row.balance).toBe(150n);
    expect(row.quoteSpent).toBe(4000n);
    expect(row.quoteReceived).toBe(1500n);
    expect([row.buys, row.sells, row.firstTradeBlock, row.lastTradeBlock]).toEqual([2, 1, 200, 200]);
  });

  it('gives received tokens zero cost, so selling them is all profit', () => {
    const a = wallet(2);
    const row = run([received(a, 100n), trade('sell', a, 100n, 700n)])(a);
    expect(row.realizedPnl).toBe(700n);
    expect(row.costBasis).toBe(0n);
    expect(row.balance).toBe(0n);
    expect(row.firstTradeBlock).toBe(200);
  });

  it('averages bought and received tokens together for a wallet that does both', () => {
    const a = wallet(3);
    const row = run([trade('buy', a, 100n, 1000n), received(a, 100n), trade('sell', a, 100n, 900n)])(a);
    // 200 tokens for 1000: 100 of them cost 500.
    expect(row.realizedPnl).toBe(400n);
    expect(row.costBasis).toBe(500n);
    expect(row.balance).toBe(100n);
  });

  it('moves cost out with sent tokens without realizing anything', () => {
    const a = wallet(4);
    const row = run([trade('buy', a, 100n, 1000n), sent(a, 40n)])(a);
    expect(row.realizedPnl).toBe(0n);
    expect(row.costBasis).toBe(600n);
    expect(row.balance).toBe(60n);
  });

  it('continues from a stored row across ranges', () => {
    const a = wallet(6);
    const rows = new Map<string, TraderRow>();
    run([trade('buy', a, 100n, 1000n)], rows);
    const row = run([trade('sell', a, 100n, 400n, 300)], rows)(a);
    expect(row.realizedPnl).toBe(-600n);
    expect([row.firstTradeBlock, row.lastTradeBlock]).toEqual([200, 300]);
  });
});

describe('labels', () => {
  it('sniper: a buy in block launch + N − 1 is one, in launch + N is not', () => {
    const early = wallet(10);
    const late = wallet(11);
    const get = run([
      trade('buy', early, 1n, 1n, launchBlock + params.sniperBlocks - 1),
      trade('buy', late, 1n, 1n, launchBlock + params.sniperBlocks),
    ]);
    expect(get(early).sniper).toBe(true);
    expect(get(late).sniper).toBe(false);
  });

  it('bundler: K wallets buying in the launch block are bundlers, K − 1 are not', () => {
    const k = params.bundlerWallets;
    const few = Array.from({ length: k - 1 }, (_, i) => wallet(20 + i));
    const getFew = run(few.map((w) => trade('buy', w, 1n, 1n, launchBlock)));
    for (const w of few) expect(getFew(w).bundler).toBe(false);
    const many = Array.from({ length: k }, (_, i) => wallet(40 + i));
    const getMany = run(many.map((w) => trade('buy', w, 1n, 1n, launchBlock)));
    for (const w of many) expect(getMany(w).bundler).toBe(true);
  });

  it('bundler: two wallets buying in one transaction, after the launch block too', () => {
    const [a, b, c] = [wallet(60), wallet(61), wallet(62)];
    const get = run([
      trade('buy', a, 1n, 1n, 500, '0xbundle'),
      trade('buy', b, 1n, 1n, 500, '0xbundle'),
      trade('buy', c, 1n, 1n, 500, '0xalone'),
      trade('buy', c, 1n, 1n, 500, '0xalone'),
    ]);
    expect([get(a).bundler, get(b).bundler, get(c).bundler]).toEqual([true, true, false]);
  });

  it('bundler: the creator does not count toward K (K − 1 others beside it are none, K others are)', () => {
    const k = params.bundlerWallets;
    const few = Array.from({ length: k - 1 }, (_, i) => wallet(100 + i));
    const getFew = run([creator, ...few].map((w) => trade('buy', w, 1n, 1n, launchBlock)));
    for (const w of [creator, ...few]) expect(getFew(w).bundler, w).toBe(false);
    const many = Array.from({ length: k }, (_, i) => wallet(120 + i));
    const getMany = run([creator, ...many].map((w) => trade('buy', w, 1n, 1n, launchBlock)));
    for (const w of many) expect(getMany(w).bundler, w).toBe(true);
    expect(getMany(creator).bundler).toBe(false);
  });

  it('creator: labelled creator, never sniper or bundler for its own launch-block buy', () => {
    const others = Array.from({ length: params.bundlerWallets }, (_, i) => wallet(70 + i));
    const get = run([creator, ...others].map((w) => trade('buy', w, 1n, 1n, launchBlock)));
    expect(get(creator)).toMatchObject({ isCreator: true, sniper: false, bundler: false });
    expect(get(others[0] as string)).toMatchObject({ isCreator: false, sniper: true, bundler: true });
  });

  it('creator_linked: received the token from the creator; from anyone else it is not', () => {
    const [linked, other] = [wallet(80), wallet(81)];
    const get = run([received(linked, 5n, creator), received(other, 5n)]);
    expect(get(linked).creatorLinked).toBe(true);
    expect(get(linked).firstTradeBlock).toBeNull();
    // Received from anyone else: no label, and no row either (a holder, not a trader).
    expect(get(other)).toBeUndefined();
  });
});

describe('labels by effect: who took what a transaction bought', () => {
  const bundle = (buyer: string, recipients: string[], block: number, transaction: string): TraderOp[] => [
    trade(
      'buy',
      buyer,
      100n * BigInt(recipients.length),
      1000n * BigInt(recipients.length),
      block,
      transaction,
    ),
    ...recipients.flatMap((r) => moved(buyer, r, 100n, transaction)),
  ];

  it('a contract that buys and hands the tokens to several wallets makes each a bundler, at the cost paid', () => {
    const contract = wallet(200);
    const recipients = [wallet(201), wallet(202), wallet(203)];
    const rows = new Map<string, TraderRow>();
    const get = run(bundle(contract, recipients, 500, '0xfan'), rows);
    for (const r of recipients)
      expect(get(r), r).toMatchObject({
        bundler: true,
        sniper: false,
        balance: 100n,
        costBasis: 1000n,
        buys: 0,
      });
    // It bought and kept nothing: no taker, no label; its row keeps the trade.
    expect(get(contract)).toMatchObject({ bundler: false, buys: 1, balance: 0n, costBasis: 0n });
    // Their sale realizes against the cost carried, not all of it as profit.
    const sold = run([trade('sell', recipients[0] as string, 100n, 1500n, 501)], rows, () => 100n);
    expect(sold(recipients[0] as string).realizedPnl).toBe(500n);
  });

  it('K − 1 recipients of a launch-block bundle are bundlers; the contract does not count toward K', () => {
    const k = params.bundlerWallets;
    const recipients = Array.from({ length: k - 1 }, (_, i) => wallet(210 + i));
    const get = run(bundle(wallet(209), recipients, launchBlock, '0xlaunchfan'));
    for (const r of recipients) expect(get(r), r).toMatchObject({ bundler: true, sniper: true });
    expect(get(wallet(209))).toMatchObject({ bundler: false, sniper: false });
  });

  it('the launch block counts takers: K − 1 buyers and one wallet served by a router are K', () => {
    const k = params.bundlerWallets;
    const buyers = Array.from({ length: k - 1 }, (_, i) => wallet(220 + i));
    const [router, served] = [wallet(230), wallet(231)];
    const ops = [
      ...buyers.map((b) => trade('buy', b, 1n, 1n, launchBlock)),
      ...bundle(router, [served], launchBlock, '0xrouted'),
    ];
    const get = run(ops);
    for (const w of [...buyers, served]) expect(get(w), w).toMatchObject({ bundler: true, sniper: true });
    expect(get(router).bundler).toBe(false);
    // One wallet served alone, after the launch block: no bundle; the cost still goes with it.
    const alone = run(bundle(router, [served], 600, '0xlater'));
    expect(alone(served)).toMatchObject({ bundler: false, sniper: false, costBasis: 1000n });
  });

  it('the creator in the launch block: a taker that never counts toward K nor gets a label', () => {
    const k = params.bundlerWallets;
    const others = Array.from({ length: k - 1 }, (_, i) => wallet(240 + i));
    const get = run(bundle(wallet(239), [creator, ...others], launchBlock, '0xwithcreator'));
    // The transaction rule counts the creator (it took tokens of a bundle), the label skips it.
    for (const w of others) expect(get(w).bundler, w).toBe(true);
    expect(get(creator)).toMatchObject({ bundler: false, sniper: false, isCreator: true, costBasis: 1000n });
  });

  it('a wallet that buys and sells in one transaction took nothing', () => {
    const [a, b] = [wallet(250), wallet(251)];
    const get = run([
      trade('buy', a, 10n, 10n, launchBlock, '0xroundtrip'),
      trade('sell', a, 10n, 9n, launchBlock, '0xroundtrip'),
      trade('buy', b, 10n, 10n, launchBlock, '0xroundtrip'),
    ]);
    expect(get(a)).toMatchObject({ sniper: false, bundler: false });
    expect(get(b)).toMatchObject({ sniper: true, bundler: false });
  });

  it('tokens handed on before the buy, or in another transaction, carry no cost', () => {
    const [contract, early, later] = [wallet(260), wallet(261), wallet(262)];
    const rows = new Map<string, TraderRow>();
    const get = run(
      [
        ...moved(contract, early, 5n, '0xmixed'),
        trade('buy', contract, 100n, 1000n, 700, '0xmixed'),
        ...moved(contract, later, 50n, '0xafter'),
      ],
      rows,
      (_t, w) => (w === contract ? 5n : 0n),
    );
    expect(get(early)).toBeUndefined();
    expect(get(later)).toBeUndefined();
    expect(get(contract)).toMatchObject({ balance: 50n, bundler: false });
  });
});

describe('which wallets have a row', () => {
  it('a wallet that only receives and sends by transfer has none: its position is its balance', () => {
    const [a, b] = [wallet(90), wallet(91)];
    const touched = applyTraderOps([received(a, 50n), sent(a, 20n), received(b, 20n)], tokenOf, params, {
      stored: () => null,
      heldBefore: () => 0n,
    });
    expect(touched).toEqual([]);
  });

  it('opens at the first trade with the balance held before it, received at zero cost', () => {
    const a = wallet(92);
    // 70 held before the range, 30 received and 10 sent in it before the buy.
    const held = (_t: string, w: string) => (w === a ? 70n : 0n);
    const row = run(
      [received(a, 30n), sent(a, 10n), trade('buy', a, 100n, 1000n), trade('sell', a, 95n, 950n)],
      new Map(),
      held,
    )(a);
    // 190 tokens cost 1000: 95 of them cost 500.
    expect(row).toMatchObject({ bought: 100n, costBasis: 500n, balance: 95n, realizedPnl: 450n, buys: 1 });
  });

  it('a wallet that both receives and buys in one range: the same as receiving first with a row', () => {
    const a = wallet(93);
    const opened = run([received(a, 100n), trade('buy', a, 100n, 1000n), trade('sell', a, 100n, 900n)])(a);
    const stored = new Map<string, TraderRow>([
      [`${token} ${a}`, { ...emptyTrader(token, a, creator), balance: 100n }],
    ]);
    const continued = run([trade('buy', a, 100n, 1000n), trade('sell', a, 100n, 900n)], stored)(a);
    expect(opened).toEqual(continued);
    expect(opened.realizedPnl).toBe(400n);
  });

  it('zero-cost transfers: a received position sold in a later range is all profit', () => {
    const a = wallet(95);
    const rows = new Map<string, TraderRow>();
    run([received(a, 100n)], rows);
    expect(rows.size).toBe(0);
    // The next range: the wallet holds the 100 it received (its balance), and sells them.
    const row = run([trade('sell', a, 100n, 700n, 300)], rows, () => 100n)(a);
    expect(row).toMatchObject({ realizedPnl: 700n, balance: 0n, sells: 1 });
  });
});

describe("the creator's cluster: cost follows the tokens", () => {
  it('creator buys, sends to a wallet, which sells: its PnL is the true profit', () => {
    const linked = wallet(130);
    // Bought 100 for 1000, moved 60 (cost 600) to a second wallet, sold there for 700.
    const get = run([
      trade('buy', creator, 100n, 1000n, launchBlock),
      ...moved(creator, linked, 60n),
      trade('sell', linked, 60n, 700n),
    ]);
    // Linked and with its sale: the cluster the risk summary's creator_sold_bps sums.
    expect(get(linked)).toMatchObject({
      creatorLinked: true,
      sold: 60n,
      costBasis: 0n,
      realizedPnl: 100n,
      balance: 0n,
    });
    expect(get(creator)).toMatchObject({ costBasis: 400n, balance: 40n, realizedPnl: 0n });
  });

  it('back to the creator and between linked wallets, pro rata; out of the cluster at zero cost', () => {
    const [a, b, outsider] = [wallet(131), wallet(132), wallet(133)];
    const get = run([
      trade('buy', creator, 100n, 1000n),
      ...moved(creator, a, 50n),
      ...moved(creator, b, 10n),
      ...moved(a, b, 20n),
      ...moved(a, creator, 10n),
      ...moved(a, outsider, 10n),
      trade('sell', outsider, 10n, 50n),
    ]);
    // a: 50 for 500, sent 20 (200) to b and 10 (100) back, 10 (100) gone out of the cluster.
    expect(get(a)).toMatchObject({ balance: 10n, costBasis: 100n });
    expect(get(b)).toMatchObject({ balance: 30n, costBasis: 300n });
    expect(get(creator)).toMatchObject({ balance: 50n, costBasis: 500n });
    expect(get(outsider)).toMatchObject({ creatorLinked: false, costBasis: 0n, realizedPnl: 50n });
  });

  it('a rowless creator receiving from a linked wallet opens its row with the cost', () => {
    const linked = wallet(134);
    const rows = new Map<string, TraderRow>([
      [
        `${token} ${linked}`,
        { ...emptyTrader(token, linked, creator), balance: 40n, costBasis: 400n, creatorLinked: true },
      ],
    ]);
    const get = run(moved(linked, creator, 10n), rows, (_t, w) => (w === creator ? 5n : 40n));
    expect(get(creator)).toMatchObject({ balance: 15n, costBasis: 100n, isCreator: true });
    expect(get(linked)).toMatchObject({ balance: 30n, costBasis: 300n });
  });
});

describe('funded by the creator: creator_linked at the first buy', () => {
  const withFunded = (ops: TraderOp[], funded: Set<string>, rows = new Map<string, TraderRow>()) => {
    const asked: string[] = [];
    const touched = applyTraderOps(ops, tokenOf, params, {
      stored: (t, w) => rows.get(`${t} ${w}`) ?? null,
      heldBefore: () => 0n,
      fundedAtFirstBuy: (t, w) => {
        asked.push(w);
        return funded.has(`${t} ${w}`);
      },
    });
    for (const row of touched) rows.set(`${row.token} ${row.wallet}`, row);
    return { get: (who: string) => rows.get(`${token} ${who}`) as TraderRow, asked };
  };

  it('is asked at a first buy only, never for the creator, and makes the wallet part of the cluster', () => {
    const [funded, other] = [wallet(300), wallet(301)];
    const rows = new Map<string, TraderRow>();
    const first = withFunded(
      [
        trade('buy', creator, 10n, 100n),
        trade('buy', funded, 10n, 100n),
        trade('buy', funded, 10n, 100n),
        trade('buy', other, 10n, 100n),
      ],
      new Set([`${token} ${funded}`]),
      rows,
    );
    expect(first.asked).toEqual([funded, other]);
    expect(first.get(funded).creatorLinked).toBe(true);
    expect(first.get(other).creatorLinked).toBe(false);
    // A later buy is no first buy: not asked, whatever the funding.
    const later = withFunded([trade('buy', other, 10n, 100n, 300)], new Set([`${token} ${other}`]), rows);
    expect(later.asked).toEqual([]);
    expect(later.get(other).creatorLinked).toBe(false);
    // Its tokens sent to the creator carry their cost (the cluster), and its sales count there.
    const back = withFunded([...moved(funded, creator, 10n)], new Set(), rows);
    expect(back.get(creator)).toMatchObject({ balance: 20n, costBasis: 200n });
  });

  it('a wallet both funded and receiving from the creator: one label, its cost carried', () => {
    const both = wallet(302);
    const { get } = withFunded(
      [trade('buy', creator, 100n, 1000n), ...moved(creator, both, 50n), trade('buy', both, 10n, 300n)],
      new Set([`${token} ${both}`]),
    );
    expect(get(both)).toMatchObject({ creatorLinked: true, balance: 60n, costBasis: 800n, buys: 1 });
  });
});

describe('transferOps', () => {
  const pool = wallet(77);
  const parties = { curve, pool, contracts: new Set([wallet(0)]) };
  const opsOf = (from: string, to: string) => {
    const ops: TraderOp[] = [];
    const leg = transferOps(parties, { token, from, to, value: 5n, transactionHash: '0xtransfer' }, (op) =>
      ops.push(op),
    );
    return { ops, leg };
  };
  it('turns wallet transfers into out then in, and mints into in', () => {
    expect(opsOf(wallet(1), wallet(2))).toEqual({ ops: moved(wallet(1), wallet(2), 5n), leg: false });
    expect(opsOf(wallet(0), wallet(1))).toEqual({ ops: [received(wallet(1), 5n, wallet(0))], leg: false });
  });
  it("a market's transfers with a wallet are legs: only the wallet's side", () => {
    for (const market of [curve, pool]) {
      expect(opsOf(market, wallet(1))).toEqual({ ops: [received(wallet(1), 5n, market)], leg: true });
      expect(opsOf(wallet(1), market)).toEqual({ ops: [sent(wallet(1), 5n)], leg: true });
      expect(opsOf(wallet(0), market)).toEqual({ ops: [], leg: false });
    }
  });
});
