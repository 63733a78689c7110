import superjson from 'superjson';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curvePrice } from '../../../shared/chain/curve-math';
import { availableBackends } from '../../_test/database';
import { type IndexedStack, startIndexedStack } from '../../_test/stack';
import { expectedFromLedger } from '../../indexer/_test/expected-from-ledger';
import { excludeToken, includeToken } from '../../tokens/moderation';
import { toJson } from './dispatch';

const backends = await availableBackends();

interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  [key: string]: any;
}

describe.each(backends)('read API on indexed simulator data (%s)', (backend) => {
  let stack: IndexedStack;
  let tokens: Json[];
  let graduated: Json;
  let curveToken: Json;

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${stack.server.baseUrl}${path}`, { headers });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : null) as Json,
      headers: response.headers,
    };
  };
  const walk = async (path: string, limit: number, between?: (page: number) => Promise<void>) => {
    const items: Json[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 200; page++) {
      const separator = path.includes('?') ? '&' : '?';
      const { status, body }: { status: number; body: Json } = await get(
        `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(status, path).toBe(200);
      items.push(...body.items);
      cursor = body.next_cursor;
      if (cursor === null) return items;
      await between?.(page);
    }
    throw new Error('too many pages');
  };

  beforeAll(async () => {
    stack = await startIndexedStack(backend, { seed: 51, launches: 26, actions: 300 });
    tokens = (await get('/api/v1/tokens?limit=100')).body.items;
    graduated = tokens.find((t) => t.lifecycle === 'graduated') as Json;
    curveToken = tokens.find((t) => t.lifecycle === 'curve' && t.trades_24h > 2) as Json;
    expect(graduated).toBeDefined();
    expect(curveToken).toBeDefined();
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const listRoutes = () => [
    '/api/v1/tokens',
    '/api/v1/tokens/newest',
    '/api/v1/tokens/trending',
    '/api/v1/trending',
    `/api/v1/creators/${curveToken.creator}/tokens`,
    `/api/v1/wallets/${stack.ledger.actions[1]?.actor}/holdings`,
    `/api/v1/tokens/${curveToken.address}/trades`,
    `/api/v1/tokens/${curveToken.address}/activity`,
    `/api/v1/tokens/${curveToken.address}/holders`,
  ];

  it('every list answers limit 1 and 100, and rejects 0, 101, 1000, 1001, abc, -1, 1.5 with 400 invalid_parameter', async () => {
    for (const route of listRoutes()) {
      for (const good of ['1', '100']) {
        const { status, body } = await get(`${route}?limit=${good}`);
        expect(status, `${route} limit=${good}`).toBe(200);
        expect(body.items.length).toBeLessThanOrEqual(Number(good));
        expect(body).toHaveProperty('next_cursor');
      }
      for (const bad of ['0', '101', '1000', '1001', 'abc', '-1', '1.5']) {
        const { status, body } = await get(`${route}?limit=${bad}`);
        expect(status, `${route} limit=${bad}`).toBe(400);
        expect(body.error.code).toBe('invalid_parameter');
      }
    }
  });

  it('lists default to 20 items with the page envelope; the last page has next_cursor null', async () => {
    for (const route of ['/api/v1/tokens', `/api/v1/tokens/${curveToken.address}/activity`]) {
      const { body } = await get(route);
      expect(body.items).toHaveLength(20);
      expect(typeof body.next_cursor).toBe('string');
    }
    const all = await get('/api/v1/tokens?limit=100');
    expect(all.body.next_cursor).toBeNull();
  });

  it('aliases answer identically: /tokens/newest = /tokens, view=new = default, /trending = /tokens/trending', async () => {
    expect((await get('/api/v1/tokens/newest?limit=50')).body).toEqual(
      (await get('/api/v1/tokens?limit=50')).body,
    );
    expect((await get('/api/v1/tokens?view=new&limit=50')).body).toEqual(
      (await get('/api/v1/tokens?limit=50')).body,
    );
    expect((await get('/api/v1/trending?limit=50')).body).toEqual(
      (await get('/api/v1/tokens/trending?limit=50')).body,
    );
  });

  it('views: top by market cap, near only curve tokens by progress, trending by the documented score', async () => {
    const top = (await get('/api/v1/tokens?view=top&limit=100')).body.items as Json[];
    const caps = top.map((t) => BigInt(t.market_cap));
    expect(caps).toEqual([...caps].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    const near = (await get('/api/v1/tokens?view=near&limit=100')).body.items as Json[];
    expect(near.every((t) => t.lifecycle === 'curve')).toBe(true);
    expect(near.map((t) => t.progress_bps)).toEqual(near.map((t) => t.progress_bps).sort((a, b) => b - a));
    const head = await stack.chain.client.getBlock({ blockNumber: BigInt(await stack.waitForIndex()) });
    const expected = expectedFromLedger(stack.ledger, Number(head.timestamp));
    const trending = (await walk('/api/v1/tokens/trending', 7)).map((t) => t.address);
    const ranked = [...expected.tokens.entries()]
      .filter(([, t]) => t.trendingScore > 0)
      .sort(([a, x], [b, y]) => y.trendingScore - x.trendingScore || (a < b ? 1 : -1))
      .map(([address]) => address);
    expect(trending).toEqual(ranked);
    const trendingNear = (await get('/api/v1/tokens/trending?view=near&limit=100')).body.items as Json[];
    expect(trendingNear.every((t) => t.lifecycle === 'curve')).toBe(true);
  });

  it('price change 24h: against the last 1-minute close at least 24 h before the head, else the first traded price', async () => {
    const head = await stack.chain.client.getBlock({ blockNumber: BigInt(await stack.waitForIndex()) });
    const expected = expectedFromLedger(stack.ledger, Number(head.timestamp));
    const dayAgo = Number(head.timestamp) - 86_400;
    const branches = { dayAgo: 0, firstTrade: 0, untraded: 0 };
    for (const item of await walk('/api/v1/tokens', 100)) {
      const minuteCandles = [...expected.candles.entries()]
        .filter(([key]) => key.startsWith(`${item.address}:60:`))
        .map(([key, candle]) => ({ start: Number(key.split(':')[2]), ...candle }))
        .sort((a, b) => a.start - b.start);
      const before = minuteCandles.filter((candle) => candle.start <= dayAgo).at(-1);
      const reference = before?.close ?? minuteCandles[0]?.open;
      if (before) branches.dayAgo++;
      else if (reference !== undefined) branches.firstTrade++;
      else branches.untraded++;
      const current = expected.tokens.get(item.address)?.currentPrice;
      if (reference === undefined || current === undefined) {
        expect(item.price_change_24h_bps, item.address).toBeNull();
        continue;
      }
      // numeric round(): half away from zero.
      const scaled = (current - reference) * 10_000n;
      const magnitude = ((scaled < 0n ? -scaled : scaled) * 2n + reference) / (2n * reference);
      expect(item.price_change_24h_bps, item.address).toBe(Number(scaled < 0n ? -magnitude : magnitude));
      const detail = (await get(`/api/v1/tokens/${item.address}`)).body;
      expect(detail.metrics.price_change_24h_bps).toBe(item.price_change_24h_bps);
    }
    // The fixture spans more than a day, so both reference rules are exercised.
    expect(branches.dayAgo).toBeGreaterThan(0);
    expect(branches.firstTrade).toBeGreaterThan(0);
  });

  it('search: allowed characters only, 64 bytes not characters, wildcards literal, view conflicts everywhere', async () => {
    for (const route of [
      '/api/v1/tokens',
      '/api/v1/tokens/newest',
      '/api/v1/tokens/trending',
      '/api/v1/trending',
    ]) {
      const conflict = await get(`${route}?search=a&view=top`);
      expect(conflict.status, route).toBe(400);
      expect(conflict.body.error.code).toBe('search_view_conflict');
      for (const bad of ['%24', '%25', 'a%2Fb', '%3Cb%3E']) {
        const rejected = await get(`${route}?search=${bad}`);
        expect(rejected.status, `${route} ${bad}`).toBe(400);
        expect(rejected.body.error.code).toBe('invalid_parameter');
      }
    }
    expect((await get(`/api/v1/tokens?search=${encodeURIComponent('é'.repeat(32))}`)).status).toBe(200);
    expect((await get(`/api/v1/tokens?search=${encodeURIComponent('é'.repeat(32))}x`)).status).toBe(400);
    expect((await get(`/api/v1/tokens?search=${'a'.repeat(64)}`)).status).toBe(200);
    expect((await get(`/api/v1/tokens?search=${'a'.repeat(65)}`)).status).toBe(400);
    // "_" is literal: "under_" matches the token named Under_score, not any six-letter prefix.
    const underscore = (await get('/api/v1/tokens?search=under_')).body.items as Json[];
    expect(
      underscore.every(
        (t) => t.name.toLowerCase().startsWith('under_') || t.symbol.toLowerCase().startsWith('under_'),
      ),
    ).toBe(true);
    const symbol = curveToken.symbol as string;
    const bySymbol = (await get(`/api/v1/tokens?search=${encodeURIComponent(symbol.toLowerCase())}`)).body
      .items as Json[];
    expect(bySymbol[0]?.symbol).toBe(symbol);
    const word = (curveToken.name as string).split(' ')[1];
    if (word) {
      const byWord = (await get(`/api/v1/tokens?search=${encodeURIComponent(word.slice(0, 3))}`)).body
        .items as Json[];
      expect(byWord.map((t) => t.address)).toContain(curveToken.address);
    }
    const byAddress = (await get(`/api/v1/tokens?search=${(curveToken.address as string).slice(0, 10)}`)).body
      .items as Json[];
    expect(byAddress.map((t) => t.address)).toContain(curveToken.address);
    expect((await get('/api/v1/tokens?view=sideways')).status).toBe(400);
  });

  it('cursors: tampered, foreign (another list or another token) and garbage are 400 invalid_cursor', async () => {
    const tokensCursor = (await get('/api/v1/tokens?limit=2')).body.next_cursor as string;
    const tradesCursor = (await get(`/api/v1/tokens/${curveToken.address}/trades?limit=1`)).body
      .next_cursor as string;
    const otherTrades = (await get(`/api/v1/tokens/${graduated.address}/trades?limit=1`)).body
      .next_cursor as string;
    const cases: [string, string][] = [
      ['/api/v1/tokens?view=top', tokensCursor],
      ['/api/v1/tokens/trending', tokensCursor],
      [`/api/v1/tokens/${curveToken.address}/activity`, tradesCursor],
      [`/api/v1/tokens/${curveToken.address}/trades`, otherTrades],
      ['/api/v1/tokens', `${tokensCursor.slice(0, -2)}AA`],
      ['/api/v1/tokens', 'not-a-cursor'],
      ['/api/v1/tokens', 'x'.repeat(600)],
    ];
    for (const [route, cursor] of cases) {
      const separator = route.includes('?') ? '&' : '?';
      const { status, body } = await get(`${route}${separator}cursor=${encodeURIComponent(cursor)}`);
      expect(status, route).toBe(400);
      expect(body.error.code).toBe('invalid_cursor');
    }
  });

  it('addresses: malformed is 400 invalid_address, unknown well-formed is 404 on every token and creator route', async () => {
    const unknown = `0x${'ab'.repeat(20)}`;
    for (const suffix of ['', '/pricing', '/chart', '/trades', '/activity', '/holders']) {
      expect((await get(`/api/v1/tokens/${unknown}${suffix}`)).status, suffix).toBe(404);
      const malformed = await get(`/api/v1/tokens/0x12345${suffix}`);
      expect(malformed.status, suffix).toBe(400);
      expect(malformed.body.error.code).toBe('invalid_address');
    }
    expect((await get(`/api/v1/creators/${unknown}`)).status).toBe(404);
    expect((await get(`/api/v1/creators/${unknown}/tokens`)).body).toEqual({ items: [], next_cursor: null });
    expect((await get(`/api/v1/wallets/${unknown}/holdings`)).body).toEqual({ items: [], next_cursor: null });
    for (const route of [
      '/api/v1/creators/nope',
      '/api/v1/creators/nope/tokens',
      '/api/v1/wallets/0xZZ/holdings',
    ]) {
      expect((await get(route)).body.error.code, route).toBe('invalid_address');
    }
    const upper = await get(
      `/api/v1/tokens/${(curveToken.address as string).toUpperCase().replace('0X', '0x')}`,
    );
    expect(upper.body.identity.address).toBe(curveToken.address);
  });

  it('chart: interval set, default 1h and 168, limit 1..1000, [from, to) half-open, from < to, non-negative', async () => {
    const base = `/api/v1/tokens/${curveToken.address}/chart`;
    const byDefault = await get(base);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.interval).toBe('1h');
    expect(byDefault.body.items.length).toBeLessThanOrEqual(168);
    for (const interval of ['1m', '5m', '15m', '1h', '4h', '1d', '1w']) {
      const { status, body } = await get(`${base}?interval=${interval}&limit=1000`);
      expect(status, interval).toBe(200);
      const times = body.items.map((p: Json) => p.time);
      expect(times).toEqual([...times].sort((a, b) => a - b));
    }
    for (const bad of [
      'interval=2h',
      'interval=1H',
      'limit=0',
      'limit=1001',
      'limit=abc',
      'from=-1',
      'to=-5',
      'from=1.5',
      'from=abc',
    ]) {
      const { status, body } = await get(`${base}?${bad}`);
      expect(status, bad).toBe(400);
      expect(body.error.code).toBe('invalid_parameter');
    }
    for (const bad of ['from=100&to=100', 'from=200&to=100']) {
      const { status, body } = await get(`${base}?${bad}`);
      expect(status, bad).toBe(400);
      expect(body.error.code).toBe('invalid_range');
    }
    const all = (await get(`${base}?interval=1m&limit=1000`)).body.items as Json[];
    expect(all.length).toBeGreaterThan(2);
    const pivot = all[1]?.time as number;
    const window = (await get(`${base}?interval=1m&limit=1000&from=${pivot}&to=${all.at(-1)?.time}`)).body
      .items as Json[];
    expect(window[0]?.time).toBe(pivot);
    expect(window.map((p) => p.time)).not.toContain(all.at(-1)?.time);
    const one = (await get(`${base}?interval=1m&limit=1`)).body.items as Json[];
    expect(one).toEqual([all.at(-1)]);
    // Gap-free: every bucket from the first trade on, empty ones repeating the last close.
    const filled = (await get(`${base}?interval=1m&limit=1000&fill=previous`)).body.items as Json[];
    for (let i = 1; i < filled.length; i++) expect(filled[i]?.time - filled[i - 1]?.time).toBe(60);
    const empty = filled.find((p) => p.trades === 0);
    if (empty) expect([empty.open, empty.high, empty.low]).toEqual([empty.close, empty.close, empty.close]);
    expect(filled.filter((p) => p.trades > 0)).toEqual(all.filter((p) => p.time >= (filled[0]?.time ?? 0)));
  });

  it('chart: the JSON PostgreSQL writes for REST is byte for byte the structured answer tRPC serves, serialized', async () => {
    for (const [interval, query] of [
      ['1m', { limit: 1000 }],
      ['5m', { limit: 3 }],
      ['1h', {}],
      ['1w', { limit: 1000 }],
      ['1m', { limit: 1000, from: 0, to: 1 }],
    ] as const) {
      const input = { address: curveToken.address as string, interval, ...query };
      const search = new URLSearchParams(Object.entries(input).map(([k, v]) => [k, String(v)]));
      const rest = await fetch(`${stack.server.baseUrl}/api/v1/tokens/${input.address}/chart?${search}`);
      expect(rest.status).toBe(200);
      const trpc = await fetch(
        `${stack.server.baseUrl}/api/trpc/tokens.chart?input=${encodeURIComponent(JSON.stringify({ json: input }))}`,
      );
      expect(trpc.status).toBe(200);
      const { result } = (await trpc.json()) as {
        result: { data: Parameters<typeof superjson.deserialize>[0] };
      };
      expect(await rest.text(), JSON.stringify(input)).toBe(toJson(superjson.deserialize(result.data)));
    }
  });

  it('trades: default 20, reverse chain order, with indexed_through_block, equal to the ledger', async () => {
    const first = await get(`/api/v1/tokens/${graduated.address}/trades`);
    expect(first.body.items).toHaveLength(Math.min(20, graduated.trades_24h));
    expect(first.body.indexed_through_block).toBe(await stack.waitForIndex());
    const all = await walk(`/api/v1/tokens/${graduated.address}/trades`, 9);
    const expected = expectedFromLedger(stack.ledger, 0)
      .trades.filter((row) => row.split('|')[2] === graduated.address)
      .reverse();
    expect(
      all.map((t) =>
        [
          t.block_number,
          t.log_index,
          t.token_address,
          t.trader,
          t.side,
          t.source,
          t.token_amount,
          t.reserve_amount,
          t.curve_value,
          t.protocol_fee,
          t.creator_fee,
        ].join('|'),
      ),
    ).toEqual(expected.map((row) => row.split('|').slice(0, 11).join('|')));
    expect(all.some((t) => t.source === 'dex_v3')).toBe(true);
    expect(Object.keys(all[0] ?? {}).sort()).toEqual(
      [
        'block_number',
        'block_timestamp',
        'creator_fee',
        'curve_value',
        'log_index',
        'protocol_fee',
        'reserve_amount',
        'side',
        'source',
        'token_address',
        'token_amount',
        'trader',
        'transaction_hash',
        'transaction_index',
      ].sort(),
    );
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
