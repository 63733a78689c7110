import { Redis } from 'ioredis';

/** The Redis the suites use: 127.0.0.1:6379 (CI runs one; see docs/testing.md). */
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** Whether a Redis answers PING at {@link TEST_REDIS_URL}. */
export async function redisReachable(): Promise<boolean> {
  const redis = new Redis(TEST_REDIS_URL, {
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
