import { sql } from 'drizzle-orm';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { creator } from '../../../shared/api/creators';
import { holdersPage, pricing, tokenDetail, tradesPage } from '../../../shared/api/tokens';
import { tradersPage, walletPnlPage } from '../../../shared/api/traders';
import { fromWire } from '../../../shared/api/wire';
import { availableBackends } from '../../../test/database';
import { type IndexedStack, startIndexedStack } from '../../../test/stack';
import { selectRows } from '../../db/client';
import { excludeToken, includeToken } from '../../tokens/moderation';
import { toJson } from './dispatch';

const schemas: Record<string, z.ZodType> = {
  'tokens.byAddress': tokenDetail,
  'tokens.pricing': pricing,
  'tokens.trades': tradesPage,
  'tokens.holders': holdersPage,
  'tokens.traders': tradersPage,
  'wallets.pnl': walletPnlPage,
  'creators.byAddress': creator,
};

const backends = await availableBackends();

/**
 * The reads whose JSON PostgreSQL writes from their schemas (server/api/rest/json-sql.ts: token
 * detail, pricing, trades, holders, traders, wallet PnL, creator; the chart in
 * read-api-parameters.int.test.ts) answer what their schema allows, byte for byte what
 * JSON.stringify writes of the schema's parse of it (keys in the schema's order, amounts as
 * decimal text), and tRPC serves the same answer, for every token of an indexed chain, every page
 * of its lists, a token with bound metadata whose text needs escaping, and an excluded token.
 */
describe.each(backends)('answers written by PostgreSQL from their schemas (%s)', (backend) => {
  let stack: IndexedStack;
  let addresses: string[];
  let creators: string[];
  /** Bound metadata with every kind of text JSON escapes, on the first token. */
  const description = 'Quote " backslash \\ slash / newline \n tab \t bell \u0007 del \u007f é 🚀 \u2028';

  beforeAll(async () => {
    stack = await startIndexedStack(backend, { seed: 52, launches: 12, actions: 160 });
    // PGlite is held by the server process: the metadata is bound on PostgreSQL only.
    if (backend === 'postgres') {
      const handle = await stack.database.open();
      try {
        const [token] = await selectRows<{ address: string; creator: string }>(
          handle.db,
          sql`select address, creator from tokens order by created_block, created_log_index limit 1`,
        );
        if (!token) throw new Error('no token indexed');
        await handle.db.execute(sql`insert into metadata_drafts (id, creator, name, symbol, initial_supply, description,
            website_url, x_url, telegram_url, discord_url, image_key, metadata_hash, bound_token_address, bound_at)
          values ('d_escapes', ${token.creator}, 'n', 's', 1, ${description}, 'https://example.com/a?b="c"', null,
            'https://t.me/x', null, 'k/e y.png', ${`0x${'ab'.repeat(32)}`}, ${token.address}, now())`);
        await handle.db.execute(
          sql`update tokens set draft_id = 'd_escapes', has_links = true where address = ${token.address}`,
        );
      } finally {
        await handle.close();
      }
    }
    const page = (await (await fetch(`${stack.server.baseUrl}/api/v1/tokens?limit=100`)).json()) as {
      items: { address: string; creator: string }[];
    };
    addresses = page.items.map((t) => t.address);
    creators = [...new Set(page.items.map((t) => t.creator))];
    expect(addresses.length).toBeGreaterThan(5);
    // A wallet that only receives a token: no trader row, a PnL entry from its balance.
    const token = addresses[0] as `0x${string}`;
    const top = (await (
      await fetch(`${stack.server.baseUrl}/api/v1/tokens/${token}/holders?limit=1`)
    ).json()) as {
      items: { wallet: `0x${string}`; balance: string }[];
    };
    const holder = top.items[0];
    if (!holder) throw new Error(`${token} has no holder`);
    await stack.chain.actions.transfer({
      from: holder.wallet,
      token,
      to: `0x${'5e'.repeat(20)}`,
      amount: BigInt(holder.balance) / 10n,
    });
    await stack.waitForIndex();
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const rest = async (path: string) => {
    const response = await fetch(`${stack.server.baseUrl}${path}`);
    return { status: response.status, text: await response.text() };
  };
  /** What tRPC answers, as JSON text; first, the REST text `expected` is checked against its schema. */
  const trpc = async (procedure: string, input: unknown, expected?: string) => {
    if (expected !== undefined) {
      const schema = schemas[procedure] as z.ZodType;
      expect(toJson(schema.parse(fromWire(schema, JSON.parse(expected)))), procedure).toBe(expected);
    }
    const response = await fetch(
      `${stack.server.baseUrl}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`,
    );
    expect(response.status, procedure).toBe(200);
    const { result } = (await response.json()) as {
      result: { data: Parameters<typeof superjson.deserialize>[0] };
    };
    return toJson(superjson.deserialize(result.data));
  };

  it('token detail and pricing of every token', async () => {
    let withMetadata = 0;
    for (const address of addresses) {
      const detail = await rest(`/api/v1/tokens/${address}`);
      expect(detail.status).toBe(200);
      expect(detail.text, address).toBe(await trpc('tokens.byAddress', { address }, detail.text));
      if (detail.text.includes('"draft_id":"d_escapes"')) withMetadata++;
      const pricing = await rest(`/api/v1/tokens/${address}/pricing`);
      expect(pricing.text, address).toBe(await trpc('tokens.pricing', { address }, pricing.text));
    }
    expect(withMetadata).toBe(backend === 'postgres' ? 1 : 0);
    expect((await rest(`/api/v1/tokens/0x${'f'.repeat(40)}`)).status).toBe(404);
    expect((await rest(`/api/v1/tokens/0x${'f'.repeat(40)}/pricing`)).status).toBe(404);
  });

  it('every page of every token’s trades at limits 1, 7, 20 and 100', async () => {
    for (const address of addresses)
      for (const limit of [1, 7, 20, 100]) {
        let cursor: string | null = null;
        for (let page = 0; page < 500; page++) {
          const input: { address: string; limit: number; cursor?: string } = {
            address,
            limit,
            ...(cursor ? { cursor } : {}),
          };
          const answer = await rest(
            `/api/v1/tokens/${address}/trades?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          expect(answer.status).toBe(200);
          expect(answer.text, `${address} ${limit} page ${page}`).toBe(
            await trpc('tokens.trades', input, answer.text),
          );
          cursor = (JSON.parse(answer.text) as { next_cursor: string | null }).next_cursor;
          if (cursor === null) break;
        }
        expect(cursor).toBeNull();
      }
    expect((await rest(`/api/v1/tokens/0x${'f'.repeat(40)}/trades`)).status).toBe(404);
  });

  /** Walks a list by REST at `limit`, each page equal to tRPC's; returns every item's text. */
  async function walkEqual(
    path: string,
    procedure: string,
    input: Record<string, unknown>,
    limit: number,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1_000; page++) {
      const query = new URLSearchParams({
        ...Object.fromEntries(Object.entries(input).map(([k, v]) => [k, String(v)])),
        limit: String(limit),
        ...(cursor ? { cursor } : {}),
      });
      query.delete('address');
      const answer = await rest(`${path}?${query}`);
      expect(answer.status, path).toBe(200);
      expect(answer.text, `${path} ${limit} page ${page}`).toBe(
        await trpc(procedure, { ...input, limit, ...(cursor ? { cursor } : {}) }, answer.text),
      );
      const body = JSON.parse(answer.text) as {
        items: Record<string, unknown>[];
        next_cursor: string | null;
      };
      items.push(...body.items);
      cursor = body.next_cursor;
      if (cursor === null) return items;
    }
    throw new Error(`${path}: no last page`);
  }

  it('every page of every token’s holders at limits 1, 7 and 100, shares of the supply included', async () => {
    let holders = 0;
    for (const address of addresses)
      for (const limit of [1, 7, 100]) {
        const items = await walkEqual(
          `/api/v1/tokens/${address}/holders`,
          'tokens.holders',
          { address },
          limit,
        );
        if (limit === 100) holders += items.length;
        for (const item of items) expect(Number(item.share_bps)).toBeGreaterThanOrEqual(0);
      }
    expect(holders).toBeGreaterThan(addresses.length);
    expect((await rest(`/api/v1/tokens/0x${'f'.repeat(40)}/holders`)).status).toBe(404);
  });

  it('every page of every token’s traders in each sort, and the PnL of every wallet that traded or holds', async () => {
    const wallets = new Set<string>();
    // Holders that never traded have no trader row: their PnL comes from their balance.
    let holdersOnly = 0;
    let labelled = 0;
    for (const address of addresses)
      for (const sort of ['realized_pnl', 'volume', 'holding'])
        for (const limit of [1, 7, 100]) {
          const items = await walkEqual(
            `/api/v1/tokens/${address}/traders`,
            'tokens.traders',
            { address, sort },
            limit,
          );
          for (const item of items) {
            wallets.add(String(item.wallet));
            if ((item.labels as string[]).length > 0) labelled++;
          }
        }
    expect(wallets.size).toBeGreaterThan(10);
    expect(labelled).toBeGreaterThan(0);
    for (const address of addresses) {
      const holders = JSON.parse((await rest(`/api/v1/tokens/${address}/holders?limit=100`)).text) as {
        items: { wallet: string }[];
      };
      for (const { wallet } of holders.items)
        if (!wallets.has(wallet)) {
          wallets.add(wallet);
          holdersOnly++;
        }
    }
    expect(holdersOnly, 'holders without a trader row').toBeGreaterThan(0);
    let negative = 0;
    for (const wallet of wallets)
      for (const limit of [1, 100]) {
        const items = await walkEqual(
          `/api/v1/wallets/${wallet}/pnl`,
          'wallets.pnl',
          { address: wallet },
          limit,
        );
        negative += items.filter((item) => String(item.realized_pnl).startsWith('-')).length;
      }
    // Signed amounts are written as the structured answer writes them.
    expect(negative).toBeGreaterThan(0);
    expect((await rest(`/api/v1/tokens/0x${'f'.repeat(40)}/traders`)).status).toBe(404);
    const none = await rest(`/api/v1/wallets/0x${'f'.repeat(40)}/pnl`);
    expect(none.text).toBe('{"items":[],"next_cursor":null}');
  }, 240_000);

  it('the PnL of a wallet holding an excluded token: no price, no unrealized PnL', async () => {
    if (backend !== 'postgres') return; // PGlite is held by the server process.
    const address = addresses[2] as string;
    const traders = JSON.parse((await rest(`/api/v1/tokens/${address}/traders?limit=1`)).text) as {
      items: { wallet: string }[];
    };
    const wallet = traders.items[0]?.wallet as string;
    const handle = await stack.database.open();
    try {
      await excludeToken(handle.db, address, 'test');
      const items = await walkEqual(`/api/v1/wallets/${wallet}/pnl`, 'wallets.pnl', { address: wallet }, 100);
      const excluded = items.find((item) => item.token === address);
      expect(excluded).toMatchObject({ price: null, unrealized_pnl: null });
    } finally {
      await includeToken(handle.db, address);
      await handle.close();
    }
  });

  it('every creator', async () => {
    for (const address of creators) {
      const answer = await rest(`/api/v1/creators/${address}`);
      expect(answer.status).toBe(200);
      expect(answer.text, address).toBe(await trpc('creators.byAddress', { address }, answer.text));
    }
    expect((await rest(`/api/v1/creators/0x${'f'.repeat(40)}`)).status).toBe(404);
  });

  it('the detail of an excluded token', async () => {
    if (backend !== 'postgres') return; // PGlite is held by the server process.
    const handle = await stack.database.open();
    const address = addresses[1] as string;
    try {
      await excludeToken(handle.db, address, 'test');
      const detail = await rest(`/api/v1/tokens/${address}`);
      expect(detail.text).toContain('"excluded":true');
      expect(detail.text).toBe(await trpc('tokens.byAddress', { address }, detail.text));
    } finally {
      await includeToken(handle.db, address);
      await handle.close();
    }
  });
});
