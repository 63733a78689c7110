import { FormData } from 'undici';
import { describe, expect, it } from 'vitest';
import type { AppServer } from '../../test/app-server';
import { appServerForTests } from '../../test/app-server-hooks';
import { fetchFrom, freshLoopbackClient } from '../../test/client-fetch';
import { testEnv } from '../../test/env';
import { redisReachable, TEST_REDIS_URL } from '../../test/redis';

const stores: ('memory' | 'redis')[] = ['memory'];
if (await redisReachable()) stores.push('redis');
else if (testEnv.requirePostgres) throw new Error('Redis on 127.0.0.1:6379 is required under CI');

const emptyUpload = (fetcher: typeof fetch, baseUrl: string, headers: Record<string, string> = {}) =>
  fetcher(`${baseUrl}/api/v1/token-metadata`, { method: 'POST', body: new FormData() as never, headers });

describe.each(stores)('one per-client gate for every transport (%s store)', (store) => {
  let server: AppServer;
  let proxied: AppServer;
  const limits = {
    RATE_LIMIT_UPLOADS_PER_MINUTE: '3',
    RATE_LIMIT_FINALIZE_PER_MINUTE: '2',
    RATE_LIMIT_READS_PER_MINUTE: '12',
    RATE_LIMIT_READS_BURST: '12',
    ...(store === 'redis' ? { REDIS_URL: TEST_REDIS_URL } : {}),
  };
  appServerForTests('pglite', limits, (open) => {
    server = open.server;
  });
  appServerForTests('pglite', { ...limits, TRUSTED_PROXY_HOPS: '1' }, (open) => {
    proxied = open.server;
  });

  it('writes: 429 rate_limited with Retry-After past the limit, keyed by the socket, whatever X-Forwarded-For says', async () => {
    const client = fetchFrom(freshLoopbackClient());
    for (let i = 0; i < 3; i++) {
      const answer = await emptyUpload(client, server.baseUrl, { 'x-forwarded-for': `198.51.100.${i}` });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('ratelimit-policy')).toContain('"uploads";q=3;w=60');
    }
    // Rotating the forwarded address does not open a new bucket: no proxy is trusted.
    const limited = await emptyUpload(client, server.baseUrl, { 'x-forwarded-for': '203.0.113.77' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit')).toMatch(/"uploads";r=0;t=\d+/);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    // Another socket address is another client.
    expect((await emptyUpload(fetchFrom(freshLoopbackClient()), server.baseUrl)).status).toBe(400);

    const finalize = () =>
      client(`${server.baseUrl}/api/v1/token-metadata/d_AAAAAAAAAAAAAAAA/finalize`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
    expect((await finalize()).status).toBe(400);
    expect((await finalize()).status).toBe(400);
    expect((await finalize()).status).toBe(429);
  });

  it('reads: REST, each call of a tRPC batch, objects, pages and health share one bucket', async () => {
    const client = fetchFrom(freshLoopbackClient());
    // Another client computes the answer first: from memory a read costs one request (one the
    // database answers costs READ_MISS_COST, tested in server/api/rest/read-cost.int.test.ts).
    await (await fetchFrom(freshLoopbackClient())(`${server.baseUrl}/api/v1/tokens?limit=1`)).arrayBuffer();
    const rest = await client(`${server.baseUrl}/api/v1/tokens?limit=1`);
    expect(rest.status).toBe(200);
    expect(rest.headers.get('ratelimit-policy')).toBe('"reads";q=12;w=60');
    expect(rest.headers.get('ratelimit')).toMatch(/^"reads";r=11;t=\d+$/);
    const input = encodeURIComponent(JSON.stringify({ 0: { json: {} }, 1: { json: {} }, 2: { json: {} } }));
    const batch = await client(
      `${server.baseUrl}/api/trpc/system.status,system.status,system.status?batch=1&input=${input}`,
    );
    expect(batch.status).toBe(200);
    expect(batch.headers.get('ratelimit')).toMatch(/^"reads";r=8;/);
    expect(
      (await client(`${server.baseUrl}/objects/${'a'.repeat(64)}.png`)).headers.get('ratelimit'),
    ).toMatch(/^"reads";r=7;/);
    expect((await client(`${server.baseUrl}/api/health`)).headers.get('ratelimit')).toMatch(/^"reads";r=6;/);
    const page = await client(`${server.baseUrl}/`);
    expect(page.headers.get('ratelimit')).toMatch(/^"reads";r=5;/);
    await page.arrayBuffer();
    for (let i = 0; i < 5; i++) await (await client(`${server.baseUrl}/api/v1/tokens?limit=1`)).arrayBuffer();
    const restLimited = await client(`${server.baseUrl}/api/v1/tokens?limit=1`);
    expect(restLimited.status).toBe(429);
    expect(restLimited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await restLimited.json()).toMatchObject({ error: { code: 'rate_limited' } });
    // The tRPC transport refuses in its own shape, one error per call of the batch.
    const trpcLimited = await client(
      `${server.baseUrl}/api/trpc/system.status,system.status?batch=1&input=${input}`,
    );
    expect(trpcLimited.status).toBe(429);
    const calls = (await trpcLimited.json()) as {
      error: { json: { data: { code: string; httpStatus: number } } };
    }[];
    expect(calls).toHaveLength(2);
    for (const call of calls)
      expect(call.error.json.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429 });
    expect((await client(`${server.baseUrl}/objects/${'a'.repeat(64)}.png`)).status).toBe(429);
    // Static assets are not counted: a page's scripts never spend a client's reads.
    expect((await client(`${server.baseUrl}/favicon.ico`)).headers.get('ratelimit')).toBeNull();
  });

  it('behind a trusted proxy, the client is the last X-Forwarded-For entry; forged entries before it change nothing', async () => {
    const proxy = fetchFrom(freshLoopbackClient());
    const client = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    for (let i = 0; i < 3; i++)
      expect(
        (await emptyUpload(proxy, proxied.baseUrl, { 'x-forwarded-for': `10.9.9.${i}, ${client}` })).status,
      ).toBe(400);
    expect(
      (await emptyUpload(proxy, proxied.baseUrl, { 'x-forwarded-for': `6.6.6.6, ${client}` })).status,
    ).toBe(429);
    expect((await emptyUpload(proxy, proxied.baseUrl, { 'x-forwarded-for': `${client}0` })).status).toBe(400);
  });
});
