import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { curvePrice } from '../../../shared/chain/curve-math';
import { availableBackends } from '../../../test/database';
import { buildOracle } from '../../../test/oracle/model';
import { type Json, readApiForTests } from '../../../test/read-api-stack';
import type { IndexedStack } from '../../../test/stack';
import { excludeToken, includeToken } from '../../tokens/moderation';

const backends = await availableBackends();

/*
 * The read API's answers against the chain as it moves: trades, pricing through a graduation,
 * pagination while launches and trades arrive, holders, activity, ETags, batch, moderation and
 * the OpenAPI document. Cases run in order: the later ones read the chain the earlier ones wrote.
 */
describe.each(backends)('read API answers on indexed simulator data (%s)', (backend) => {
  let stack: IndexedStack;
  let tokens: Json[];
  let graduated: Json;
  let curveToken: Json;
  const { get, walk } = readApiForTests(backend, (api) => {
    ({ stack, tokens, graduated, curveToken } = api);
  });

  it('trades: default 20, reverse chain order, with indexed_through_block, equal to the oracle', async () => {
    const first = await get(`/api/v1/tokens/${graduated.address}/trades`);
    expect(first.body.items).toHaveLength(Math.min(20, graduated.trades_24h));
    expect(first.body.indexed_through_block).toBe(await stack.waitForIndex());
    const all = await walk(`/api/v1/tokens/${graduated.address}/trades`, 9);
    // Every field of every trade, in reverse chain order, as the oracle folds them from the chain.
    expect(all).toEqual(buildOracle({ view: await stack.readChainView() }).trades(String(graduated.address)));
    expect(all.some((t) => t.source === 'dex_v3')).toBe(true);
  });

  it('pricing: curve source until the latest trade is a pool swap of a graduated token', async () => {
    const curve = await get(`/api/v1/tokens/${curveToken.address}/pricing`);
    expect(curve.body).toMatchObject({ token_address: curveToken.address, source: 'indexed_v3_curve' });
    expect(curve.body.current_price).toBe(
      (await get(`/api/v1/tokens/${curveToken.address}`)).body.metrics.current_price,
    );
    const market = await get(`/api/v1/tokens/${graduated.address}/pricing`);
    expect(market.body.source).toBe('indexed_v3_market');
    // A fresh graduation: the graduating buy is a curve trade, so the source stays curve…
    const { actions, client } = stack.chain;
    const whale = '0x000000000000000000000000000000000000a11e' as Address;
    await client.test.setBalance({ address: whale, value: 10n ** 24n });
    const launched = await actions.launch({
      creator: whale,
      name: 'Pricing Probe',
      symbol: 'PROBE',
      supply: 10n ** 27n,
      metadataHash: `0x${'77'.repeat(32)}`,
    });
    await actions.buy({ trader: whale, token: launched.token, value: 500n * 10n ** 18n });
    await stack.waitForIndex();
    const justGraduated = await get(`/api/v1/tokens/${launched.token.toLowerCase()}/pricing`);
    expect(justGraduated.body.source).toBe('indexed_v3_curve');
    const detail = (await get(`/api/v1/tokens/${launched.token.toLowerCase()}`)).body;
    expect(detail.curve.lifecycle).toBe('graduated');
    expect(detail.graduation.pool_address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(BigInt(justGraduated.body.current_price)).toBe(
      curvePrice(BigInt(detail.curve.virtual_token_reserve), BigInt(detail.curve.virtual_reserve)),
    );
    // …and becomes market once a pool swap is the latest trade.
    const { stable } = stack.chain.deployment.contracts;
    await actions.wrap({ account: whale, value: 10n ** 18n });
    await actions.approveRouter({ account: whale, token: stable });
    await actions.swap({ trader: whale, tokenIn: stable, tokenOut: launched.token, amountIn: 100_000n });
    await stack.waitForIndex();
    expect((await get(`/api/v1/tokens/${launched.token.toLowerCase()}/pricing`)).body.source).toBe(
      'indexed_v3_market',
    );
  });

  it('pagination walks have no duplicate and no gap while new launches and trades arrive between pages', async () => {
    const before = (await get('/api/v1/tokens?limit=100')).body.items.map((t: Json) => t.address);
    const whale = '0x000000000000000000000000000000000000bee5' as Address;
    await stack.chain.client.test.setBalance({ address: whale, value: 10n ** 24n });
    let launched = 0;
    const walked = await walk('/api/v1/tokens', 4, async () => {
      if (launched < 3) {
        launched++;
        await stack.chain.actions.launch({
          creator: whale,
          name: `Arrival ${launched}`,
          symbol: `ARR${launched}`,
          supply: 10n ** 27n,
          metadataHash: `0x${'88'.repeat(32)}`,
        });
        await stack.waitForIndex();
      }
    });
    expect(walked.map((t) => t.address)).toEqual(before);
    const tradesBefore = await walk(`/api/v1/tokens/${curveToken.address}/trades`, 100);
    const tradesWalked = await walk(`/api/v1/tokens/${curveToken.address}/trades`, 3, async (page) => {
      if (page < 2) {
        await stack.chain.actions.buy({ trader: whale, token: curveToken.address, value: 10n ** 16n });
        await stack.waitForIndex();
      }
    });
    expect(tradesWalked).toEqual(tradesBefore);
  });

  it('holders, holdings and creators agree with the chain', async () => {
    const detail = (await get(`/api/v1/tokens/${curveToken.address}`)).body;
    const holders = await walk(`/api/v1/tokens/${curveToken.address}/holders`, 3);
    expect(holders).toHaveLength(detail.metrics.holders);
    const balances = holders.map((h) => BigInt(h.balance));
    expect(balances).toEqual([...balances].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    for (const holder of holders.slice(0, 5)) {
      expect(BigInt(holder.balance)).toBe(
        await stack.chain.actions.balanceOf(curveToken.address, holder.wallet),
      );
    }
    const wallet = holders[0]?.wallet as Address;
    const holdings = await walk(`/api/v1/wallets/${wallet}/holdings`, 2);
    const mine = holdings.find((h) => h.token.address === curveToken.address);
    expect(mine?.balance).toBe(holders[0]?.balance);
    expect(mine?.price).toBe(detail.metrics.current_price);
    expect(BigInt(mine?.value)).toBe((BigInt(mine?.balance) * BigInt(mine?.price)) / 10n ** 18n);
    expect(Object.keys(mine ?? {}).sort()).toEqual([
      'balance',
      'lifecycle',
      'metrics',
      'price',
      'token',
      'value',
    ]);
    const creator = (await get(`/api/v1/creators/${curveToken.creator}`)).body;
    const creatorTokens = await walk(`/api/v1/creators/${curveToken.creator}/tokens`, 2);
    expect(creator.tokens_launched).toBe(creatorTokens.length);
    expect(creatorTokens.every((t) => t.creator === curveToken.creator)).toBe(true);
    expect(creator.indexed_through_block).toBeGreaterThan(0);
  });

  it('activity lists every decoded event with provenance, filterable by kind', async () => {
    const events = await walk(`/api/v1/tokens/${graduated.address}/activity`, 25);
    const kinds = new Set(events.map((e) => e.kind));
    for (const kind of ['launch', 'trade', 'graduation', 'transfer', 'swap'])
      expect(kinds, kind).toContain(kind);
    for (const event of events.slice(0, 10)) {
      expect(event.block_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(event.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(Object.values(event.data).every((v) => typeof v === 'string')).toBe(true);
    }
    const swaps = await walk(`/api/v1/tokens/${graduated.address}/activity?kind=swap`, 10);
    expect(swaps.length).toBe(events.filter((e) => e.kind === 'swap').length);
    expect((await get(`/api/v1/tokens/${graduated.address}/activity?kind=mint`)).status).toBe(400);
  });

  it('reads carry an ETag and answer 304 to If-None-Match', async () => {
    const first = await get(`/api/v1/tokens/${curveToken.address}`);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"b\d+-/);
    expect(first.headers.get('cache-control')).toContain('max-age');
    const again = await fetch(`${stack.server.baseUrl}/api/v1/tokens/${curveToken.address}`, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('tokens/batch: list items in the order asked, unknown addresses apart, every bad input a 400', async () => {
    const [a, b, c] = tokens.map((t) => t.address as string);
    const unknown = `0x${'ab'.repeat(20)}`;
    const ok = await get(
      `/api/v1/tokens/batch?addresses=${c},${unknown},${a?.toUpperCase().replace('0X', '0x')},${b},${c}`,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.items.map((t: Json) => t.address)).toEqual([c, a, b]);
    expect(ok.body.items[0]).toEqual(tokens.find((t) => t.address === c));
    expect(ok.body.not_found).toEqual([unknown]);
    expect(ok.body.excluded).toEqual([]);
    expect(ok.body.indexed_through_block).toBe(await stack.waitForIndex());
    const fifty = Array.from({ length: 50 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
    expect((await get(`/api/v1/tokens/batch?addresses=${fifty.join(',')}`)).body.not_found).toHaveLength(50);

    const cases: [string, string][] = [
      ['', 'invalid_parameter'],
      ['?addresses=', 'invalid_parameter'],
      [`?addresses=${[...fifty, unknown].join(',')}`, 'invalid_parameter'],
      [`?addresses=${a}&addresses=${b}`, 'invalid_parameter'],
      ['?addresses=0x123', 'invalid_address'],
      [`?addresses=${a},,${b}`, 'invalid_address'],
      [`?addresses=${a},`, 'invalid_address'],
      [`?addresses=${a}%20`, 'invalid_address'],
      [`?addresses=${a?.slice(2)}`, 'invalid_address'],
      [`?addresses=${a}x`, 'invalid_address'],
    ];
    for (const [query, code] of cases) {
      const { status, body } = await get(`/api/v1/tokens/batch${query}`);
      expect(status, query).toBe(400);
      expect(body.error.code, query).toBe(code);
    }
    // The same procedure over tRPC takes an array.
    const trpc = await get(
      `/api/trpc/tokens.batch?input=${encodeURIComponent(JSON.stringify({ json: { addresses: [b, a] } }))}`,
    );
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.json.items.map((t: Json) => t.address)).toEqual([b, a]);
  });

  it('moderation: an excluded token leaves every list, keeps its detail, loses its price in holdings', async () => {
    if (backend !== 'postgres') return; // PGlite is held by the server process; the CLI needs it stopped.
    const handle = await stack.database.open();
    try {
      await excludeToken(handle.db, curveToken.address, 'test');
      for (const route of [
        '/api/v1/tokens?limit=100',
        '/api/v1/tokens?view=top&limit=100',
        '/api/v1/tokens/trending?limit=100',
        `/api/v1/creators/${curveToken.creator}/tokens?limit=100`,
      ]) {
        expect(
          (await get(route)).body.items.map((t: Json) => t.address),
          route,
        ).not.toContain(curveToken.address);
      }
      expect((await get(`/api/v1/tokens/${curveToken.address}`)).body.excluded).toBe(true);
      const batch = (await get(`/api/v1/tokens/batch?addresses=${curveToken.address},${graduated.address}`))
        .body;
      expect(batch.excluded).toEqual([curveToken.address]);
      expect(batch.items.map((t: Json) => t.address)).toEqual([graduated.address]);
      const holder = (await get(`/api/v1/tokens/${curveToken.address}/holders?limit=1`)).body.items[0]
        ?.wallet;
      const holding = ((await get(`/api/v1/wallets/${holder}/holdings?limit=100`)).body.items as Json[]).find(
        (h) => h.token.address === curveToken.address,
      );
      expect(holding?.price).toBeNull();
      expect(holding?.value).toBeNull();
      await includeToken(handle.db, curveToken.address);
      expect((await get('/api/v1/tokens?limit=100')).body.items.map((t: Json) => t.address)).toContain(
        curveToken.address,
      );
    } finally {
      await handle.close();
    }
  });

  it('OpenAPI documents every route with its parameters and error codes', async () => {
    const { body } = await get('/api/v1/openapi.json');
    for (const path of [
      '/api/v1/tokens',
      '/api/v1/tokens/newest',
      '/api/v1/tokens/trending',
      '/api/v1/trending',
      '/api/v1/tokens/{address}',
      '/api/v1/tokens/{address}/pricing',
      '/api/v1/tokens/{address}/chart',
      '/api/v1/tokens/{address}/trades',
      '/api/v1/tokens/{address}/activity',
      '/api/v1/tokens/{address}/holders',
      '/api/v1/creators/{address}',
      '/api/v1/creators/{address}/tokens',
      '/api/v1/wallets/{address}/holdings',
      '/api/v1/stream',
    ]) {
      expect(body.paths[path]?.get, path).toBeDefined();
    }
    expect(Object.keys(body.paths['/api/v1/stream'].get.responses['200'].content)).toEqual([
      'text/event-stream',
    ]);
    const chart = body.paths['/api/v1/tokens/{address}/chart'].get;
    expect(chart.parameters.find((p: Json) => p.name === 'limit').schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 168,
    });
    expect(chart.responses['400'].content['application/json'].examples).toHaveProperty('invalid_range');
  });
});
