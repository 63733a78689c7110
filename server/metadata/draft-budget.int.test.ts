import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { FormData } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, startAppServer } from '../../test/app-server';
import { fetchFrom, freshLoopbackClient } from '../../test/client-fetch';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';

const [backend] = await availableBackends();

interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  [key: string]: any;
}

/**
 * A PNG of random pixels (incompressible): about 270 KB, a different one every call; stored with
 * its ~197 KB share-card thumbnail, two fit in a 1 MB budget and three do not.
 */
async function noisyPng() {
  const side = 300;
  const raw = Buffer.alloc(side * side * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = Math.floor(Math.random() * 256);
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * The storage budget through the real server: the client is what the front keys it by (its
 * socket address here), a refusal is the API's 429 envelope, and the web process's own purge
 * gives the bytes back when its drafts expire.
 */
describe(`the per-client storage budget of unbound drafts (${backend})`, () => {
  let database: TestDatabase;
  let server: AppServer;
  // 1 MB: two ~390 KB images fit, a third does not.
  const env = () => ({ ...database.env, DRAFT_BUDGET_MB: '1', RATE_LIMIT_UPLOADS_PER_MINUTE: '0' });
  const alice = fetchFrom(freshLoopbackClient());
  const bob = fetchFrom(freshLoopbackClient());

  const upload = async (from: typeof fetch, headers: Record<string, string> = {}) => {
    const form = new FormData();
    form.append('name', 'Budget');
    form.append('symbol', 'BDG');
    form.append('initial_supply', (10n ** 27n).toString());
    form.append('image', new Blob([new Uint8Array(await noisyPng())], { type: 'image/png' }), 'a.png');
    const response = await from(`${server.baseUrl}/api/v1/token-metadata`, {
      method: 'POST',
      body: form as never,
      headers,
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
  };

  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    database = await createTestDatabase(backend);
    server = await startAppServer(env());
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('refuses the upload that would pass the budget with 429 storage_budget_exceeded, per client', async () => {
    const first = await upload(alice);
    expect(first.status).toBe(201);
    expect((await upload(alice)).status).toBe(201);

    const refused = await upload(alice);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.body.error.code).toBe('storage_budget_exceeded');
    expect(refused.body.error.message).toMatch(/at most 1000000 bytes/);
    const details = Object.fromEntries(
      (refused.body.error.details as { field: string; message: string }[]).map((d) => [d.field, d.message]),
    );
    expect(Number(details.budget_bytes)).toBe(1_000_000);
    expect(Number(details.held_bytes) + Number(details.draft_bytes)).toBeGreaterThan(1_000_000);
    // Frees when the oldest expires (24 h) and the purge after it runs (every 10 min).
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(86_400 - 120);
    expect(retryAfter).toBeLessThanOrEqual(86_400 + 600);

    // What the client writes cannot make it someone else: a forwarded address is ignored
    // without trusted proxies, and a client header it writes is read by nothing.
    const disguised = await upload(alice, {
      'x-forwarded-for': '203.0.113.50',
      'x-launchdex-client': '203.0.113.51',
    });
    expect(disguised.status).toBe(429);
    expect(disguised.body.error.code).toBe('storage_budget_exceeded');

    // Another client has a budget of its own.
    expect((await upload(bob)).status).toBe(201);

    // The image of an accepted draft is served; the OpenAPI document declares the refusal.
    expect((await fetch(`${server.baseUrl}${first.body.image_url}`)).status).toBe(200);
    const document = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as Json;
    const tooMany = document.paths['/api/v1/token-metadata'].post.responses['429'];
    expect(Object.keys(tooMany.content['application/json'].examples)).toContain('storage_budget_exceeded');
    expect(document.components.schemas.Error.properties.error.properties.code.enum).toContain(
      'storage_budget_exceeded',
    );
  });

  it('gives the bytes back once the web process purges the expired drafts', async () => {
    const before = await upload(alice);
    expect(before.body.error?.code).toBe('storage_budget_exceeded');
    const held = await fetch(`${server.baseUrl}${(await upload(bob)).body.image_url}`);
    expect(held.status).toBe(200);

    // A day passes: the drafts' clocks are moved back (PGlite admits one process, so the server
    // stops meanwhile), and the server comes back purging every 200 ms.
    await server.stop();
    const handle = await database.open();
    const images = (await handle.db.execute(
      sql`update metadata_drafts set created_at = now() - interval '25 hours' returning image_key`,
    )) as unknown;
    const keys = (Array.isArray(images) ? images : (images as { rows: unknown[] }).rows) as {
      image_key: string;
    }[];
    await handle.close();
    server = await startAppServer({ ...env(), DRAFT_PURGE_INTERVAL_MS: '200' });

    const deadline = Date.now() + 20_000;
    const gone = async () =>
      (
        await Promise.all(
          keys.map(async ({ image_key }) => (await fetch(`${server.baseUrl}/objects/${image_key}`)).status),
        )
      ).every((status) => status === 404);
    while (!(await gone())) {
      if (Date.now() > deadline) throw new Error('the purge did not delete the expired drafts’ objects');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await upload(alice)).status).toBe(201);
  });
});
