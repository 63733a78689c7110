import superjson from 'superjson';
import { describe, expect, it } from 'vitest';
import { chart } from '../../../shared/api/tokens';
import { fromWire } from '../../../shared/api/wire';
import { availableBackends } from '../../../test/database';
import { buildOracle } from '../../../test/oracle/model';
import { expectedTables } from '../../../test/oracle/tables';
import { type Json, readApiForTests } from '../../../test/read-api-stack';
import type { IndexedStack } from '../../../test/stack';
import { toJson } from './dispatch';

const backends = await availableBackends();

/*
 * The read API's parameters on indexed simulator data: limits, defaults, aliases, views, 24 h
 * price change, search, cursors, addresses and chart windows. Nothing here writes to the chain.
 */
describe.each(backends)('read API parameters on indexed simulator data (%s)', (backend) => {
  let stack: IndexedStack;
  let graduated: Json;
  let curveToken: Json;
  const { get, walk } = readApiForTests(backend, (api) => {
    ({ stack, graduated, curveToken } = api);
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
    await stack.waitForIndex();
    expect(await walk('/api/v1/tokens/trending', 7)).toEqual(
      buildOracle({ view: await stack.readChainView() }).trending(),
    );
    const trendingNear = (await get('/api/v1/tokens/trending?view=near&limit=100')).body.items as Json[];
    expect(trendingNear.every((t) => t.lifecycle === 'curve')).toBe(true);
  });

  it('price change 24h: against the last 1-minute close at least 24 h before the head, else the first traded price', async () => {
    await stack.waitForIndex();
    const view = await stack.readChainView();
    const expected = expectedTables(view);
    const dayAgo = view.head.timestamp - 86_400;
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

  it('chart: the JSON PostgreSQL writes from its schema is what the schema allows, and what tRPC serves', async () => {
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
      const text = await rest.text();
      expect(text, JSON.stringify(input)).toBe(toJson(superjson.deserialize(result.data)));
      // Keys in the schema's order, amounts as decimal text: what JSON.stringify writes of its parse.
      expect(toJson(chart.parse(fromWire(chart, JSON.parse(text))))).toBe(text);
    }
  });
});
