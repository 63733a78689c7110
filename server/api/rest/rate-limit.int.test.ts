import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppServer, startAppServer } from '../../_test/app-server';
import { createTestDatabase, type TestDatabase } from '../../_test/database';
import { testEnv } from '../../_test/env';

async function redisReachable(): Promise<boolean> {
  const redis = new Redis('redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

const stores: ('memory' | 'redis')[] = ['memory'];
if (await redisReachable()) stores.push('redis');
else if (testEnv.requirePostgres) throw new Error('Redis on 127.0.0.1:6379 is required under CI');

describe.each(stores)('POST rate limits (%s store)', (store) => {
  let database: TestDatabase;
  let server: AppServer;
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('answers 429 rate_limited with Retry-After past the per-client limit, per client address', async () => {
    database = await createTestDatabase('pglite');
    server = await startAppServer({
      ...database.env,
      RATE_LIMIT_UPLOADS_PER_MINUTE: '3',
      RATE_LIMIT_FINALIZE_PER_MINUTE: '2',
      ...(store === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}),
    });
    // A per-run address keeps runs (and the shared Redis) from counting each other's requests.
    const client = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
    const upload = (address: string) =>
      fetch(`${server.baseUrl}/api/v1/token-metadata`, {
        method: 'POST',
        body: new FormData(),
        headers: { 'x-forwarded-for': address },
      });
    for (let i = 0; i < 3; i++) expect((await upload(client)).status).toBe(400);
    const limited = await upload(client);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect((await upload(`${client}0`)).status).toBe(400);
    const finalize = () =>
      fetch(`${server.baseUrl}/api/v1/token-metadata/d_AAAAAAAAAAAAAAAA/finalize`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
      });
    expect((await finalize()).status).toBe(400);
    expect((await finalize()).status).toBe(400);
    expect((await finalize()).status).toBe(429);
  });
});
