import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, startAppServer } from '../../../test/app-server';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../../test/database';
import { fixtureAddress, fixtureToken, insertTokens, setCheckpoint } from '../../../test/fixtures';

const backends = await availableBackends();
const TOKEN_COUNT = 45;

interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  [key: string]: any;
}

async function get(
  server: AppServer,
  path: string,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(`${server.baseUrl}${path}`);
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Json, headers: response.headers };
}

describe.each(backends)('REST /api/v1 on the real Next server (%s)', (backend) => {
  let database: TestDatabase;
  let server: AppServer;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const handle = await database.open();
    const rows = Array.from({ length: TOKEN_COUNT }, (_, i) => fixtureToken(i));
    rows[7] = fixtureToken(7, { excluded: true });
    rows[3] = fixtureToken(3, { name: 'Pepe the Frog', symbol: 'PEPE' });
    rows[4] = fixtureToken(4, { name: 'Pepper', symbol: 'PEP' });
    rows[5] = fixtureToken(5, { name: 'Under_score', symbol: 'U_S' });
    rows[6] = fixtureToken(6, { name: 'Unders core', symbol: 'UXS' });
    await insertTokens(handle.db, rows);
    await setCheckpoint(handle.db, 500);
    // PGlite allows one process per directory: the server opens it after we let go.
    await handle.close();
    server = await startAppServer(database.env);
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('health reports the database reachable, migrations current and the checkpoint', async () => {
    const { status, body } = await get(server, '/api/health');
    expect(status).toBe(200);
    expect(body.database).toMatchObject({ driver: backend, reachable: true, migrations: { current: true } });
    expect(body.indexer.indexed_through_block).toBe(500);
  });

  // Besides out-of-range and non-numbers: every spelling of a number but its canonical one
  // (leading zeros, signed zero, a plus sign, an exponent, spaces, hex), percent-encoded as sent.
  it.each([
    '0',
    '101',
    'abc',
    '-1',
    '1.5',
    '1001',
    '',
    '007',
    '05',
    '-0',
    '%2B5',
    '+5',
    '1e3',
    '1e1',
    '%205',
    '5%20',
    '0x10',
  ])('limit=%s answers 400 invalid_parameter with the envelope', async (limit) => {
    const { status, body, headers } = await get(server, `/api/v1/tokens?limit=${limit}`);
    expect(status).toBe(400);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(body.error.code).toBe('invalid_parameter');
    expect(body.error.message).toContain('limit');
    expect(body.error.details[0].field).toBe('limit');
  });

  it.each([
    ['from', '-0'],
    ['from', '007'],
    ['from', '%2B5'],
    ['from', '1e3'],
    ['to', '%205'],
    ['to', '0x10'],
    ['to', '00'],
    ['limit', '0168'],
  ])(
    'chart %s=%s (not canonical integer text) answers 400 invalid_parameter naming it',
    async (name, value) => {
      const { status, body } = await get(
        server,
        `/api/v1/tokens/${fixtureAddress('token', 1)}/chart?${name}=${value}`,
      );
      expect(status).toBe(400);
      expect(body.error.code).toBe('invalid_parameter');
      expect(body.error.details[0].field).toBe(name);
    },
  );

  it('canonical integers still answer: limit=1, limit=100, chart from=0', async () => {
    expect((await get(server, '/api/v1/tokens?limit=1')).body.items).toHaveLength(1);
    const chart = await get(
      server,
      `/api/v1/tokens/${fixtureAddress('token', 1)}/chart?from=0&to=10&limit=1000`,
    );
    expect(chart.status).toBe(200);
    expect(chart.body.items).toEqual([]);
  });

  it('tokens/batch: a repeated address counts once towards the 50, whatever its hex case', async () => {
    const listed = Array.from({ length: TOKEN_COUNT }, (_, i) => fixtureAddress('token', i));
    const unknown = Array.from({ length: 5 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, 'f')}`);
    const fifty = [...listed, ...unknown];
    expect(new Set(fifty).size).toBe(50);
    const shout = (address: string) => `0x${address.slice(2).toUpperCase()}`;
    // 50 distinct tokens in 55 entries: repeats as sent and in another case.
    const entries = [
      ...fifty,
      fifty[0],
      shout(fifty[1] as string),
      fifty[2],
      shout(fifty[49] as string),
      fifty[3],
    ];
    const ok = await get(server, `/api/v1/tokens/batch?addresses=${entries.join(',')}`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const answered = [
      ...ok.body.items.map((t: Json) => t.address),
      ...ok.body.excluded,
      ...ok.body.not_found,
    ];
    expect(answered.sort()).toEqual([...fifty].sort());
    expect(ok.body.items.map((t: Json) => t.address)).toEqual(listed.filter((_, i) => i !== 7));
    expect(ok.body.excluded).toEqual([fixtureAddress('token', 7)]);
    expect(ok.body.not_found).toEqual(unknown);
    // A 51st distinct address is one too many, however many repeats came before it.
    const tooMany = await get(
      server,
      `/api/v1/tokens/batch?addresses=${[...entries, `0x${'ee'.repeat(20)}`].join(',')}`,
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('invalid_parameter');
  });

  it('limit=100 answers 200 with {items, next_cursor}; default is 20', async () => {
    const full = await get(server, '/api/v1/tokens?limit=100');
    expect(full.status).toBe(200);
    expect(Object.keys(full.body).sort()).toEqual(['items', 'next_cursor']);
    expect(full.body.items).toHaveLength(TOKEN_COUNT - 1);
    expect(full.body.next_cursor).toBeNull();
    const first = await get(server, '/api/v1/tokens');
    expect(first.body.items).toHaveLength(20);
    expect(typeof first.body.next_cursor).toBe('string');
    const one = await get(server, '/api/v1/tokens?limit=1');
    expect(one.body.items).toHaveLength(1);
  });

  it('lists newest first, excludes moderated tokens, and view=new equals the default', async () => {
    const list = await get(server, '/api/v1/tokens?limit=100');
    const addresses: string[] = list.body.items.map((t: Json) => t.address);
    expect(addresses[0]).toBe(fixtureAddress('token', TOKEN_COUNT - 1));
    expect(addresses).not.toContain(fixtureAddress('token', 7));
    const blocks = list.body.items.map((t: Json) => t.created_at);
    expect([...blocks].sort((a, b) => b - a)).toEqual(blocks);
    const viewNew = await get(server, '/api/v1/tokens?limit=100&view=new');
    expect(viewNew.body).toEqual(list.body);
  });

  it('walks every page with no duplicate and no gap', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const path: string = `/api/v1/tokens?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { status, body } = await get(server, path);
      expect(status).toBe(200);
      seen.push(...body.items.map((t: Json) => t.address));
      cursor = body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 20);
    expect(seen).toHaveLength(TOKEN_COUNT - 1);
    expect(new Set(seen).size).toBe(TOKEN_COUNT - 1);
    const all = await get(server, '/api/v1/tokens?limit=100');
    expect(seen).toEqual(all.body.items.map((t: Json) => t.address));
  });

  it('serializes amounts as decimal text and the list item shape of DESIGN.md', async () => {
    const { body } = await get(server, '/api/v1/tokens?limit=1');
    const item = body.items[0];
    expect(Object.keys(item).sort()).toEqual(
      [
        'address',
        'created_at',
        'creator',
        'current_price',
        'holders',
        'image_url',
        'lifecycle',
        'market_cap',
        'name',
        'price_change_24h_bps',
        'progress_bps',
        'symbol',
        'trades_24h',
        'volume_24h',
      ].sort(),
    );
    expect(item.current_price).toMatch(/^\d+$/);
    expect(item.market_cap).toMatch(/^\d+$/);
    expect(BigInt(item.market_cap)).toBeGreaterThan(2n ** 53n);
    // Fixture tokens have no candles: no price to compare with, so no change rather than 0 %.
    expect(item.price_change_24h_bps).toBeNull();
  });

  it('sorts view=top by market cap and view=near by progress among curve tokens', async () => {
    const top = await get(server, '/api/v1/tokens?view=top&limit=100');
    const caps = top.body.items.map((t: Json) => BigInt(t.market_cap));
    expect(caps).toEqual([...caps].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    const near = await get(server, '/api/v1/tokens?view=near&limit=100');
    const progress = near.body.items.map((t: Json) => t.progress_bps);
    expect(progress).toEqual([...progress].sort((a, b) => b - a));
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: Json } = await get(
        server,
        `/api/v1/tokens?view=top&limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      walked.push(...page.body.items.map((t: Json) => t.address));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(top.body.items.map((t: Json) => t.address));
  });

  it('rejects a cursor of another view and a tampered cursor with 400 invalid_cursor', async () => {
    const top = await get(server, '/api/v1/tokens?view=top&limit=2');
    const foreign = await get(
      server,
      `/api/v1/tokens?limit=2&cursor=${encodeURIComponent(top.body.next_cursor)}`,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('invalid_cursor');
    const cursor: string = top.body.next_cursor;
    const tampered = `${cursor.slice(0, 10)}${cursor[10] === 'x' ? 'y' : 'x'}${cursor.slice(11)}`;
    const edited = await get(
      server,
      `/api/v1/tokens?view=top&limit=2&cursor=${encodeURIComponent(tampered)}`,
    );
    expect(edited.status).toBe(400);
    expect(edited.body.error.code).toBe('invalid_cursor');
  });

  it('search: exact symbol first, prefix of a name word, wildcards literal, and its own rules', async () => {
    const pep = await get(server, '/api/v1/tokens?search=pep');
    expect(pep.body.items.map((t: Json) => t.symbol).slice(0, 2)).toEqual(['PEP', 'PEPE']);
    const frog = await get(server, '/api/v1/tokens?search=FROG');
    expect(frog.body.items.map((t: Json) => t.symbol)).toEqual(['PEPE']);
    const underscore = await get(server, '/api/v1/tokens?search=under_');
    expect(underscore.body.items.map((t: Json) => t.symbol)).toEqual(['U_S']);
    const address = fixtureAddress('token', 9);
    const byAddress = await get(server, `/api/v1/tokens?search=${address.slice(0, 12)}`);
    expect(byAddress.body.items.map((t: Json) => t.address)).toContain(address);
    const conflict = await get(server, '/api/v1/tokens?search=pep&view=top');
    expect(conflict.status).toBe(400);
    expect(conflict.body.error.code).toBe('search_view_conflict');
    for (const bad of ['%24', '%25', 'a*b']) {
      const rejected = await get(server, `/api/v1/tokens?search=${bad}`);
      expect(rejected.status, bad).toBe(400);
      expect(rejected.body.error.code).toBe('invalid_parameter');
    }
    const ok64 = await get(server, `/api/v1/tokens?search=${encodeURIComponent('é'.repeat(32))}`);
    expect(ok64.status).toBe(200);
    const over64 = await get(server, `/api/v1/tokens?search=${encodeURIComponent(`${'é'.repeat(32)}a`)}`);
    expect(over64.status).toBe(400);
  });

  it('token detail: 200 with every group, 404 for an unknown well-formed address, 400 for a malformed one', async () => {
    const address = fixtureAddress('token', 3).toUpperCase().replace('0X', '0x');
    const { status, body } = await get(server, `/api/v1/tokens/${address}`);
    expect(status).toBe(200);
    expect(body.identity.address).toBe(fixtureAddress('token', 3));
    expect(body.identity.name).toBe('Pepe the Frog');
    expect(body.indexed_through_block).toBe(500);
    expect(Object.keys(body).sort()).toEqual([
      'concentration',
      'creation',
      'curve',
      'excluded',
      'identity',
      'indexed_through_block',
      'metadata',
      'metrics',
      'risk',
    ]);
    expect(body.graduation).toBeUndefined();
    const unknown = await get(server, `/api/v1/tokens/0x${'ab'.repeat(20)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    for (const bad of ['0x123', 'hello', `0x${'g'.repeat(40)}`, `${'a'.repeat(42)}`]) {
      const malformed = await get(server, `/api/v1/tokens/${bad}`);
      expect(malformed.status, bad).toBe(400);
      expect(malformed.body.error.code).toBe('invalid_address');
    }
  });

  it('detail of an excluded token still answers, flagged', async () => {
    const { status, body } = await get(server, `/api/v1/tokens/${fixtureAddress('token', 7)}`);
    expect(status).toBe(200);
    expect(body.excluded).toBe(true);
  });

  it('ignores unknown parameters, rejects a repeated one, and answers JSON 404/405 for unknown paths and methods', async () => {
    expect((await get(server, '/api/v1/tokens?limit=2&foo=bar')).status).toBe(200);
    const repeated = await get(server, '/api/v1/tokens?limit=2&limit=3');
    expect(repeated.status).toBe(400);
    const missing = await get(server, '/api/v1/nothing/here');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const post = await fetch(`${server.baseUrl}/api/v1/tokens`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(((await post.json()) as Json).error.code).toBe('method_not_allowed');
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const { status, body } = await get(server, '/api/v1/openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining(['/api/v1/tokens', '/api/v1/tokens/{address}']),
    );
    // Every operation is public and can be refused by the gate: 429 with the headers it sends.
    expect(body.servers).toHaveLength(1);
    for (const [path, operations] of Object.entries(body.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(operations as Record<string, Json>)) {
        expect(operation.security, `${method} ${path}`).toEqual([]);
        expect(Object.keys(operation.responses['429']?.headers ?? {}).sort(), `${method} ${path}`).toEqual([
          'RateLimit',
          'RateLimit-Policy',
          'Retry-After',
        ]);
      }
    }
    const docs = await fetch(`${server.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('/api/v1/tokens/{address}');
  });
});
