import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsHeaders } from '../../test/app-server';
import { availableBackends } from '../../test/database';
import { type IndexedStack, startIndexedStack } from '../../test/stack';

const backends = await availableBackends();

describe.each(backends)('observability (%s)', (backend) => {
  let stack: IndexedStack;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.server.baseUrl}${path}`, { headers });

  beforeAll(async () => {
    stack = await startIndexedStack(
      backend,
      { seed: 81, launches: 4, actions: 30 },
      { LOG_LEVEL: 'info' },
      { proxy: true },
    );
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('/api/ready is 200 ready when caught up, 200 stale naming the cause while the RPC is down, ready again after', async () => {
    await stack.waitForIndex();
    const ready = await get('/api/ready');
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as {
      status: string;
      indexer: { lag_blocks: number; max_lag_blocks: number };
    };
    expect(body.status).toBe('ready');
    expect(body.indexer.lag_blocks).toBe(0);
    expect(body.indexer.max_lag_blocks).toBe(64);
    expect(ready.headers.get('cache-control')).toBe('no-store');

    stack.proxy?.setDown(true);
    try {
      const down = await get('/api/ready');
      expect(down.status).toBe(200);
      expect((await down.json()) as { status: string; reasons: string[] }).toMatchObject({
        status: 'stale',
        reasons: ['chain head unknown (RPC did not answer): serving what is indexed'],
      });
      // Liveness does not depend on the chain.
      expect((await get('/api/health')).status).toBe(200);
    } finally {
      stack.proxy?.setDown(false);
    }
    const again = await get('/api/ready');
    expect(again.status).toBe(200);
    expect(((await again.json()) as { status: string }).status).toBe('ready');
  });

  it('every API request gets an access log line, a latency observation and an X-Request-Id', async () => {
    const token = stack.ledger.actions.find((action) => action.kind === 'launch')?.token.toLowerCase();
    if (!token) throw new Error('fixture has no token');
    const given = await get(`/api/v1/tokens/${token}`, { 'x-request-id': 'trace-abc.123' });
    expect(given.status).toBe(200);
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const forged = await get('/api/v1/tokens', { 'x-request-id': 'bad id with spaces' });
    expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get('/api/v1/nope')).status).toBe(404);
    await get('/api/trpc/tokens.list?input=%7B%22json%22%3A%7B%22limit%22%3A1%7D%7D');

    await expect
      .poll(() =>
        stack.server
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((entry) => entry.msg === 'request' && entry.requestId === 'trace-abc.123'),
      )
      .toMatchObject({ method: 'GET', route: '/api/v1/tokens/{address}', status: 200, service: 'launchdex' });

    const metrics = await (await get('/api/metrics', metricsHeaders)).text();
    expect(metrics).toMatch(
      /launchdex_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/tokens\/\{address\}",status="2xx"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /launchdex_http_request_duration_seconds_count\{method="GET",route="unmatched",status="4xx"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /launchdex_http_request_duration_seconds_count\{method="GET",route="\/api\/trpc",status="2xx"\} [1-9]/,
    );
    // The raw token address never becomes a label.
    expect(metrics).not.toContain(token);
  });

  it("/api/metrics exposes the index position, lag and this process's indexer counters", async () => {
    const indexed = await stack.waitForIndex();
    const metrics = await (await get('/api/metrics', metricsHeaders)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect(value('launchdex_indexed_block')).toBeGreaterThanOrEqual(indexed);
    expect(value('launchdex_chain_head_block')).toBeGreaterThanOrEqual(indexed);
    expect(value('launchdex_indexer_lag_blocks')).toBeGreaterThanOrEqual(0);
    expect(value('launchdex_indexer_events_total')).toBeGreaterThanOrEqual(stack.ledger.actions.length);
    expect(value('launchdex_indexer_blocks_total')).toBeGreaterThan(0);
    expect(value('launchdex_indexer_batches_total')).toBeGreaterThan(0);
    expect(value('launchdex_indexer_reorgs_total')).toBe(0);
    expect(metrics).toContain('launchdex_process_resident_memory_bytes');
  });

  it("/api/metrics exposes the API's database time, the stream capacity and the webhook targets' states", async () => {
    // Reads the read cache cannot answer (a new query each time) take database turns.
    for (const limit of [1, 2, 3]) expect((await get(`/api/v1/tokens?limit=${limit}`)).status).toBe(200);
    const metrics = await (await get('/api/metrics', metricsHeaders)).text();
    const value = (series: string) =>
      Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect(value('launchdex_db_read_turns_total')).toBeGreaterThanOrEqual(3);
    expect(value('launchdex_db_read_seconds_total')).toBeGreaterThan(0);
    expect(value('launchdex_db_read_queued_seconds_total')).toBeGreaterThanOrEqual(0);
    expect(value('launchdex_db_acquire_timeouts_total')).toBe(0);
    expect(value('launchdex_stream_max_clients')).toBe(1000);
    for (const state of ['ok', 'retrying', 'failing'])
      expect(value(`launchdex_webhook_targets{state="${state}"}`)).toBe(0);
  });
});
