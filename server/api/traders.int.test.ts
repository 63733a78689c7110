import { describe, expect, it } from 'vitest';
import { indexedStackForTests } from '../../test/app-server-hooks';
import { fundedAddress } from '../../test/chain';
import { availableBackends } from '../../test/database';
import { buildOracle } from '../../test/oracle/model';
import { buildTradersOracle } from '../../test/oracle/traders';
import { getJson, walkPages } from '../../test/oracle/walk';
import { type IndexedStack, startIndexedStack } from '../../test/stack';
import {
  type LabelScenario,
  type PoolPayerScenario,
  runLabelScenario,
  runPoolPayerScenario,
} from '../chain/simulator/label-scenario';
import { excludeToken, includeToken } from '../tokens/moderation';

const backends = await availableBackends();
const params = { sniperBlocks: 3, bundlerWallets: 4, fundingHops: 2, fundingWindowBlocks: 300 };

describe.each(backends)('traders, PnL and labels against the chain oracle (%s)', (backend) => {
  let stack: IndexedStack;
  let scenario: LabelScenario;
  let poolPayer: PoolPayerScenario;
  let poolToken: string;

  indexedStackForTests(
    () =>
      startIndexedStack(
        backend,
        { seed: 30, launches: 10, actions: 180 },
        {
          SNIPER_BLOCKS: String(params.sniperBlocks),
          BUNDLER_WALLETS: String(params.bundlerWallets),
          FUNDING_HOPS: String(params.fundingHops),
          FUNDING_WINDOW_BLOCKS: String(params.fundingWindowBlocks),
        },
      ),
    async (started) => {
      stack = started;
      const funded = await Promise.all([0, 1, 2, 3, 4, 5, 6].map((i) => fundedAddress(stack.chain, 300 + i)));
      const [creator, linked, ...bundlers] = funded as [`0x${string}`, `0x${string}`, ...`0x${string}`[]];
      scenario = await runLabelScenario(
        stack.chain.client,
        stack.chain.deployment,
        stack.chain.actions,
        { creator, linked, bundlers },
        30,
      );
      // A pool sell paid by a wallet that only received the token, proceeds to a third wallet.
      const graduated = (await stack.readChainView()).logs.find((log) => log.eventName === 'Graduated');
      if (!graduated) throw new Error('the fixture graduated no token');
      const [buyer, payer, recipient] = await Promise.all(
        [7, 8, 9].map((i) => fundedAddress(stack.chain, 300 + i)),
      );
      poolPayer = await runPoolPayerScenario(
        stack.chain.deployment,
        stack.chain.actions,
        String(graduated.args.token) as `0x${string}`,
        { buyer, payer, recipient } as PoolPayerScenario,
      );
      poolToken = String(graduated.args.token).toLowerCase();
      // A wallet that only ever receives the token: a holder, no trader row.
      await stack.chain.actions.transfer({
        from: buyer as `0x${string}`,
        token: poolToken as `0x${string}`,
        to: `0x${'5e'.repeat(20)}`,
        amount: 1_000n,
      });
      await stack.waitForIndex();
    },
    300_000,
  );

  it('every page of every sort of every token, and every wallet PnL, equal the oracle', async () => {
    await stack.waitForIndex();
    const view = await stack.readChainView();
    const model = buildOracle({ view });
    const oracle = buildTradersOracle(view, params, (token) =>
      BigInt(String(model.pricing(token)?.current_price ?? '0')),
    );
    const base = stack.server.baseUrl;
    let compared = 0;
    const labels = new Map<string, number>();
    // Each token's `balances` rows as /holders serves them: a position is the wallet's balance
    // (docs/api.md), 0 for a wallet that holds none.
    const held = new Map<string, Map<string, string>>();
    const heldBy = (token: string, wallet: string) => held.get(token)?.get(wallet) ?? '0';
    for (const token of oracle.tokens()) {
      const holders = await walkPages(base, `/api/v1/tokens/${token}/holders`, 100);
      held.set(token, new Map(holders.items.map((item) => [String(item.wallet), String(item.balance)])));
      for (const sort of ['realized_pnl', 'volume', 'holding']) {
        const expected = oracle.traders(token, sort);
        const walked = await walkPages(base, `/api/v1/tokens/${token}/traders?sort=${sort}`, 4);
        expect(walked.items, `${token} ${sort}`).toEqual(expected);
        for (const item of walked.items)
          expect(item.balance, `${token} ${item.wallet} balance`).toBe(heldBy(token, String(item.wallet)));
        compared += expected.length;
        if (sort === 'volume')
          for (const item of expected)
            for (const label of item.labels as string[]) labels.set(label, (labels.get(label) ?? 0) + 1);
      }
    }
    for (const wallet of oracle.wallets()) {
      const walked = await walkPages(base, `/api/v1/wallets/${wallet}/pnl`, 3);
      expect(walked.items, wallet).toEqual(oracle.pnl(wallet));
      for (const item of walked.items)
        expect(item.balance, `${wallet} ${item.token} balance`).toBe(heldBy(String(item.token), wallet));
      compared += walked.items.length;
    }
    expect(compared).toBeGreaterThan(200);
    // The fixture exercises the creator label and zero-cost transfers at least.
    expect(labels.get('creator') ?? 0).toBeGreaterThan(0);
    // The scenario's known answer (label-scenario.ts): every launch-block buyer and every
    // recipient of the contract's bundle in the next block is a sniper and a bundler (the
    // creator's own launch buy does not count), the wallets the creator funded one and two hops
    // away before their first buy and its token recipient are creator-linked (the third hop is
    // not), and the detail's risk summary equals the oracle's.
    const token = scenario.token.toLowerCase();
    const rows = new Map(oracle.traders(token, 'volume').map((item) => [item.wallet, item]));
    const byWallet = new Map([...rows].map(([wallet, item]) => [wallet, item.labels]));
    const labelsOf = (wallet: string) => byWallet.get(wallet.toLowerCase());
    for (const wallet of [...scenario.bundlers, ...scenario.fanned])
      expect(labelsOf(wallet), wallet).toEqual(['sniper', 'bundler']);
    const [hop1, hop2, hop3] = scenario.funded;
    expect(labelsOf(hop1)).toEqual(['sniper', 'creator_linked']);
    expect(labelsOf(hop2)).toEqual(['creator_linked']);
    expect(labelsOf(hop3)).toEqual([]);
    expect(labelsOf(scenario.linked)).toEqual(['creator_linked']);
    expect(labelsOf(scenario.creator)).toEqual(['creator']);
    // The contract bought and kept nothing: a row of its trade, no label.
    const contract = [...rows.values()].find(
      (item) =>
        item.buys === 1 &&
        item.balance === '0' &&
        !scenario.bundlers.some((b) => b.toLowerCase() === item.wallet),
    );
    expect(contract?.labels).toEqual([]);
    const detail = await getJson(base, `/api/v1/tokens/${token}`);
    expect(detail.body.risk).toEqual(model.detail(token)?.risk);
    expect(detail.body.risk).toMatchObject({
      bundler_wallets: scenario.bundlers.length + scenario.fanned.length,
      sniper_wallets: scenario.bundlers.length + scenario.fanned.length + 1,
      creator_linked_wallets: 3,
    });
    // The cluster (the creator, its token recipient, the two funded wallets) sold over bought.
    const cluster = [scenario.creator, scenario.linked, hop1, hop2].map((w) => rows.get(w.toLowerCase()));
    const sum = (field: 'bought' | 'sold') =>
      cluster.reduce((total, row) => total + BigInt(String(row?.[field])), 0n);
    expect((detail.body.risk as { creator_sold_bps: number }).creator_sold_bps).toBe(
      Number((sum('sold') * 10_000n) / sum('bought')),
    );
    // Tokens carried their cost: from the creator to its recipient, and from the contract's buy
    // to the wallet it handed them to, so neither sale is all profit.
    for (const wallet of [scenario.linked, scenario.fanned[0] as string]) {
      const row = rows.get(wallet.toLowerCase());
      expect(BigInt(String(row?.cost_basis)), wallet).toBeGreaterThan(0n);
      expect(BigInt(String(row?.realized_pnl)), wallet).toBeLessThan(BigInt(String(row?.quote_received)));
    }
    // Rows (docs/api.md): a pool sell is its payer's, whose tokens went into the pool: it sold
    // tokens it received (zero cost: all profit) and holds the rest; the swap's recipient got
    // the stablecoin and no token, so it has no row; a wallet that only received has none.
    const poolRows = new Map(oracle.traders(poolToken, 'volume').map((item) => [item.wallet, item]));
    const paid = poolRows.get(poolPayer.payer.toLowerCase());
    expect(paid).toMatchObject({ buys: 0, sells: 1, cost_basis: '0', labels: [] });
    expect(paid?.realized_pnl).toBe(paid?.quote_received);
    expect(BigInt(String(paid?.balance))).toBeGreaterThan(0n);
    expect(paid?.balance).toBe(heldBy(poolToken, poolPayer.payer.toLowerCase()));
    expect(poolRows.get(poolPayer.recipient.toLowerCase())).toBeUndefined();
    const receivedOnly = [...oracle.wallets()].filter(
      (wallet) =>
        !oracle.tokens().some((t) => oracle.traders(t, 'volume').some((item) => item.wallet === wallet)) &&
        oracle.pnl(wallet).length > 0,
    );
    expect(receivedOnly.length, 'wallets that only received a token').toBeGreaterThan(0);
    console.info(
      `traders oracle: ${compared} rows equal; labels ${JSON.stringify(Object.fromEntries(labels))}`,
    );
  }, 600_000);

  it('moderation: a wallet keeps the PnL row of an excluded token, unpriced as in holdings', async () => {
    if (backend !== 'postgres') return; // PGlite is held by the server process; the CLI needs it stopped.
    const base = stack.server.baseUrl;
    const token = scenario.token.toLowerCase();
    const holders = (await getJson(base, `/api/v1/tokens/${token}/holders?limit=1`)).body.items;
    const holder = (holders as { wallet: string }[])[0]?.wallet;
    if (!holder) throw new Error(`${token} has no holder`);
    const rowOf = async (list: 'pnl' | 'holdings') => {
      const walked = await walkPages(base, `/api/v1/wallets/${holder}/${list}`, 100);
      const row = walked.items.find(
        (item) => (list === 'pnl' ? item.token : (item.token as { address: string }).address) === token,
      );
      if (!row) throw new Error(`${holder} has no ${list} row of ${token}: ${JSON.stringify(walked.items)}`);
      return row;
    };
    const before = await rowOf('pnl');
    expect(before.price).not.toBeNull();
    expect(before.unrealized_pnl).not.toBeNull();
    const handle = await stack.database.open();
    try {
      await excludeToken(handle.db, token, 'traders test');
      // The same rule as the wallet's holdings: the row stays, our valuation goes.
      expect(await rowOf('pnl')).toEqual({ ...before, price: null, unrealized_pnl: null });
      expect(await rowOf('holdings')).toMatchObject({ price: null, value: null });
      await includeToken(handle.db, token);
      expect(await rowOf('pnl')).toEqual(before);
    } finally {
      await handle.close();
    }
  });

  it('refuses bad parameters with 400 and an unknown token with 404', async () => {
    const base = stack.server.baseUrl;
    const [token] = buildTradersOracle(await stack.readChainView(), params, () => 0n).tokens();
    const status = async (path: string) => (await getJson(base, path)).status;
    expect(await status(`/api/v1/tokens/${token}/traders?sort=profit`)).toBe(400);
    expect(await status(`/api/v1/tokens/${token}/traders?limit=0`)).toBe(400);
    expect(await status(`/api/v1/tokens/${token}/traders?limit=101`)).toBe(400);
    expect(await status(`/api/v1/tokens/${token}/traders?cursor=nope`)).toBe(400);
    expect(await status('/api/v1/tokens/0x12/traders')).toBe(400);
    expect(await status('/api/v1/wallets/0x12/pnl')).toBe(400);
    expect(await status(`/api/v1/tokens/0x${'ab'.repeat(20)}/traders`)).toBe(404);
    // A cursor is bound to its sort: one of realized_pnl is refused on volume.
    const first = await getJson(base, `/api/v1/tokens/${token}/traders?sort=realized_pnl&limit=1`);
    const cursor = encodeURIComponent(String(first.body.next_cursor));
    expect(await status(`/api/v1/tokens/${token}/traders?sort=volume&limit=1&cursor=${cursor}`)).toBe(400);
    expect(await status(`/api/v1/tokens/${token}/traders?sort=realized_pnl&limit=1&cursor=${cursor}`)).toBe(
      200,
    );
    const empty = await getJson(base, `/api/v1/wallets/0x${'cd'.repeat(20)}/pnl`);
    expect(empty).toEqual({ status: 200, body: { items: [], next_cursor: null } });
  });
});
