import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsHeaders, startAppServer } from '../../test/app-server';
import { fixtureToken, insertTokens, setCheckpoint } from '../../test/fixtures';
import { type ReplicatedPostgres, replicationTools, startReplicatedPostgres } from '../../test/replication';
import { loadPersistedCursorSecret } from '../api/cursor-secret';
import { createRestDispatcher } from '../api/rest/dispatch';
import { createReadCache } from '../api/rest/read-cache';
import { restRoutes } from '../api/rest/registry';
import { answerWebRequest } from '../api/rest/web-request';
import { createCaller } from '../api/root';
import type { Context } from '../api/trpc';
import { parseConfig } from '../config';
import { createLogger } from '../logger';
import { createImageFetcher } from '../metadata/fetch-image';
import { openObjectStore } from '../objects/store';
import { type DatabaseHandle, openDatabase } from './client';
import { migrateDatabase } from './migrate';
import { openReadDatabases, type ReadDatabases } from './read-databases';
import { bumpReadVersion, createReadVersion } from './read-version';

/**
 * Read replicas on PostgreSQL's own streaming replication, through the REST dispatcher and the
 * tRPC caller the server runs: a primary cluster and a hot standby of it (test/replication.ts).
 */
const tools = replicationTools();
if ('missing' in tools)
  console.warn(
    `replicas.int.test.ts skipped: ${tools.missing} (set TEST_PG_BIN to the server's bin directory)`,
  );

interface Page {
  items: { address: string }[];
  next_cursor: string | null;
}

describe.skipIf('missing' in tools)('reads on a hot standby never go backwards for a client', () => {
  let pg: ReplicatedPostgres;
  let primary: DatabaseHandle;
  let reads: ReadDatabases;
  let context: Context;
  let onPrimaryOnly: ReturnType<typeof createRestDispatcher>;
  let routed: ReturnType<typeof createRestDispatcher>;

  const get = async (
    dispatcher: ReturnType<typeof createRestDispatcher>,
    path: string,
    minBlock?: number,
  ) => {
    const answer = await answerWebRequest(
      dispatcher,
      new Request(`http://launchdex.test${path}`, {
        headers: minBlock === undefined ? {} : { 'x-min-indexed-block': String(minBlock) },
      }),
    );
    return {
      status: answer.status,
      header: answer.headers.get('x-indexed-through-block'),
      text: await answer.text(),
    };
  };
  const advance = async (block: number, first: number) => {
    await insertTokens(
      primary.db,
      Array.from({ length: 5 }, (_, i) => fixtureToken(first + i, { createdBlock: block })),
    );
    await setCheckpoint(primary.db, block);
    await bumpReadVersion(primary.db);
  };

  beforeAll(async () => {
    pg = await startReplicatedPostgres();
    primary = await openDatabase({ kind: 'postgres', url: pg.primaryUrl });
    await migrateDatabase(primary);
    await advance(100, 0);
    await insertTokens(
      primary.db,
      Array.from({ length: 25 }, (_, i) => fixtureToken(100 + i)),
    );
    await bumpReadVersion(primary.db);
    await pg.caughtUp();
    const config = parseConfig({
      NODE_ENV: 'test',
      DATABASE_URL: pg.primaryUrl,
      DATABASE_READ_URLS: pg.replicaUrl,
      REPLICA_POLL_MS: '50',
      REPLICA_MAX_LAG_BLOCKS: '1000',
    });
    reads = await openReadDatabases(config, primary.db);
    context = {
      transport: 'caller',
      db: primary.db,
      config,
      clock: () => new Date(),
      objects: () => openObjectStore(config.objects),
      fetchImage: createImageFetcher(),
      chain: () => undefined,
      cursorSecret: 'replica-test-cursor-secret-0123456789',
    };
    const cache = () => ({ version: createReadVersion(primary.db), cache: createReadCache(8 * 1024 * 1024) });
    const logger = createLogger(config);
    onPrimaryOnly = createRestDispatcher(restRoutes, { context, logger });
    routed = createRestDispatcher(restRoutes, { context, logger, readCache: cache(), databases: reads });
  }, 120_000);
  afterAll(async () => {
    await reads?.close();
    await primary?.close();
    await pg?.stop();
  });

  const replica = () => reads.health()[0]?.name ?? '';
  const until = async (what: () => boolean | Promise<boolean>, label: string) => {
    const deadline = Date.now() + 30_000;
    while (!(await what())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it('answers through the replica equal the primary’s', async () => {
    for (const path of ['/api/v1/tokens?limit=7', '/api/v1/tokens?sort=market_cap&limit=5']) {
      const before = reads.reads()[replica()] ?? 0;
      const viaReplica = await get(routed, path);
      expect(reads.reads()[replica()]).toBe(before + 1);
      const viaPrimary = await get(onPrimaryOnly, path);
      expect(viaReplica.status).toBe(200);
      expect(viaReplica.text).toBe(viaPrimary.text);
      expect(viaReplica.header).toBe('100');
    }
  });

  it('min_block and X-Min-Indexed-Block are validated like every parameter', async () => {
    for (const bad of ['-1', 'abc', '1.5', '99999999999999999999'])
      expect((await get(routed, `/api/v1/tokens?min_block=${encodeURIComponent(bad)}`)).status).toBe(400);
    expect((await get(routed, '/api/v1/tokens?min_block=1&min_block=2')).status).toBe(400);
    const badHeader = await answerWebRequest(
      routed,
      new Request('http://launchdex.test/api/v1/tokens', { headers: { 'x-min-indexed-block': 'x' } }),
    );
    expect(badHeader.status).toBe(400);
  });

  it('with replay paused, a client that saw block N is never answered below N', async () => {
    await pg.pauseReplay();
    await advance(200, 200);
    await reads.version('primary').current();
    await until(() => (reads.health()[0]?.lagBlocks ?? 0) >= 100, 'the poll to see the lag');
    // Without a high-water block the frozen replica still answers: the staleness is real.
    const anonymous = await get(routed, '/api/v1/tokens?limit=5');
    expect(anonymous.header).toBe('100');
    const seen = await get(routed, '/api/v1/tokens?limit=5', 200);
    expect(seen.header).toBe('200');
    const primaryBefore = reads.reads().primary ?? 0;
    let cursor: string | null = null;
    for (let page = 0; page < 4; page++) {
      const path: string = `/api/v1/tokens?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer = await get(routed, path, 200);
      expect(answer.status).toBe(200);
      expect(Number(answer.header)).toBeGreaterThanOrEqual(200);
      cursor = (JSON.parse(answer.text) as Page).next_cursor;
    }
    expect(reads.reads().primary).toBe(primaryBefore + 4);
    // The same through the query parameter and through tRPC queries.
    expect(Number((await get(routed, '/api/v1/tokens?limit=5&min_block=200')).header)).toBe(200);
    const onPrimary = reads.reads().primary ?? 0;
    const caller = createCaller({ ...context, reads, minBlock: 200 });
    const list = await caller.tokens.list({ limit: 25 });
    expect(reads.reads().primary).toBe(onPrimary + 1);
    const fromPrimary = await createCaller(context).tokens.list({ limit: 25 });
    expect(list).toEqual(fromPrimary);
    // Without the high-water block the query goes to the frozen replica, which answers older.
    const onReplica = reads.reads()[replica()] ?? 0;
    const stale = await createCaller({ ...context, reads }).tokens.list({ limit: 25 });
    expect(reads.reads()[replica()]).toBe(onReplica + 1);
    expect(stale).not.toEqual(fromPrimary);
  });

  it('with replay paused, a walk begun at block N follows its cursor alone, never to the replica behind N', async () => {
    expect(reads.health()[0]?.position?.block).toBe(100);
    const primaryBefore = reads.reads().primary ?? 0;
    const replicaBefore = reads.reads()[replica()] ?? 0;
    // Page 1 as a client that has seen block 200 (X-Min-Indexed-Block): the primary answers it.
    const first = await get(routed, '/api/v1/tokens?limit=4', 200);
    expect(first.header).toBe('200');
    let cursor = (JSON.parse(first.text) as Page).next_cursor;
    let pages = 1;
    // Then only next_cursor, no header nor min_block: the cursor carries block 200.
    while (cursor !== null && pages < 5) {
      const path = `/api/v1/tokens?limit=4&cursor=${encodeURIComponent(cursor)}`;
      const answer = await get(routed, path);
      expect(answer.status, answer.text).toBe(200);
      expect(Number(answer.header)).toBeGreaterThanOrEqual(200);
      expect(answer.text).toBe((await get(onPrimaryOnly, path)).text);
      cursor = (JSON.parse(answer.text) as Page).next_cursor;
      pages++;
    }
    expect(pages).toBe(5);
    expect(reads.reads().primary).toBe(primaryBefore + pages);
    expect(reads.reads()[replica()]).toBe(replicaBefore);
    // The same over tRPC: page 1 at block 200, page 2 by its cursor alone.
    const firstPage = await createCaller({ ...context, reads, minBlock: 200 }).tokens.list({ limit: 4 });
    expect(firstPage.next_cursor).not.toBeNull();
    const onPrimary = reads.reads().primary ?? 0;
    const input = { limit: 4, cursor: firstPage.next_cursor ?? undefined };
    const second = await createCaller({ ...context, reads }).tokens.list(input);
    expect(reads.reads().primary).toBe(onPrimary + 1);
    expect(reads.reads()[replica()]).toBe(replicaBefore);
    expect(second).toEqual(await createCaller(context).tokens.list(input));
    // A read at a block needs a database indexed through it: block 150 is the primary's (the
    // replica, at 100, would refuse it as past its index), block 100 may be the replica's.
    const holders = `/api/v1/tokens/${fixtureToken(0).address}/holders`;
    const beforeAt = reads.reads().primary ?? 0;
    const at150 = await get(routed, `${holders}?block=150`);
    expect(at150.status, at150.text).toBe(200);
    expect(reads.reads().primary).toBe(beforeAt + 1);
    expect((await get(routed, `${holders}?block=100`)).status).toBe(200);
    expect((await get(routed, `${holders}?block=201`)).status).toBe(400);
  });

  it('the replica stopped mid-walk: every request is still answered, by the primary', async () => {
    await pg.resumeReplay();
    await pg.caughtUp();
    await until(() => reads.health()[0]?.lagBlocks === 0, 'the replica to catch up');
    let cursor: string | null = null;
    for (let page = 0; page < 6; page++) {
      if (page === 2) await pg.stopReplica();
      const path: string = `/api/v1/tokens?sort=market_cap&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer = await get(routed, path);
      expect(answer.status, `page ${page}: ${answer.text}`).toBe(200);
      cursor = (JSON.parse(answer.text) as Page).next_cursor;
    }
    expect(reads.health()[0]?.healthy).toBe(false);
  }, 60_000);

  it('the replica back and caught up: reads return to it', async () => {
    await pg.startReplica();
    await pg.resumeReplay().catch(() => {});
    await pg.caughtUp();
    await until(() => reads.health()[0]?.healthy === true, 'the replica to rejoin');
    const before = reads.reads()[replica()] ?? 0;
    const answer = await get(routed, '/api/v1/tokens?limit=3', 200);
    expect(answer.status).toBe(200);
    expect(answer.header).toBe('200');
    expect(reads.reads()[replica()]).toBe(before + 1);
  }, 60_000);

  it('the real server: reads on the replica, min_block, tRPC headers, readiness and metrics', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'launchdex-replica-server-'));
    const server = await startAppServer({
      DATABASE_URL: pg.primaryUrl,
      DATABASE_READ_URLS: pg.replicaUrl,
      REPLICA_POLL_MS: '50',
      DATA_DIR: dataDir,
      CURSOR_SECRET: 'replica-test-cursor-secret-0123456789',
    });
    try {
      const list = await fetch(`${server.baseUrl}/api/v1/tokens?limit=3`);
      expect(list.status).toBe(200);
      expect(list.headers.get('x-indexed-through-block')).toBe('200');
      expect((await fetch(`${server.baseUrl}/api/v1/tokens?min_block=x`)).status).toBe(400);
      await pg.pauseReplay();
      await advance(300, 300);
      const ahead = await fetch(`${server.baseUrl}/api/v1/tokens?limit=3`, {
        headers: { 'x-min-indexed-block': '300' },
      });
      expect(ahead.headers.get('x-indexed-through-block')).toBe('300');
      const trpc = await fetch(
        `${server.baseUrl}/api/trpc/tokens.list?input=${encodeURIComponent(JSON.stringify({ json: { limit: 2 } }))}`,
        { headers: { 'x-min-indexed-block': '300' } },
      );
      expect(trpc.status).toBe(200);
      expect(trpc.headers.get('x-indexed-through-block')).toBe('300');
      // Page 2 by the cursor alone, over HTTP (superjson input): still never the frozen replica.
      const { next_cursor: cursor } = ((await trpc.json()) as { result: { data: { json: Page } } }).result
        .data.json;
      expect(cursor).not.toBeNull();
      const byCursor = await fetch(
        `${server.baseUrl}/api/trpc/tokens.list?input=${encodeURIComponent(JSON.stringify({ json: { limit: 2, cursor } }))}`,
      );
      expect(byCursor.status).toBe(200);
      expect(byCursor.headers.get('x-indexed-through-block')).toBe('300');
      const restByCursor = await fetch(
        `${server.baseUrl}/api/v1/tokens?limit=2&cursor=${encodeURIComponent(cursor ?? '')}`,
      );
      expect(restByCursor.status).toBe(200);
      expect(restByCursor.headers.get('x-indexed-through-block')).toBe('300');
      const badTrpc = await fetch(`${server.baseUrl}/api/trpc/tokens.list?input=%7B%7D`, {
        headers: { 'x-min-indexed-block': '-1' },
      });
      expect(badTrpc.status).toBe(400);
      const ready = (await (await fetch(`${server.baseUrl}/api/ready`)).json()) as {
        replicas: { name: string; healthy: boolean; lag_blocks: number | null; reads: number }[];
      };
      expect(ready.replicas).toHaveLength(1);
      expect(ready.replicas[0]?.reads).toBeGreaterThanOrEqual(1);
      const metrics = await (
        await fetch(`${server.baseUrl}/api/metrics`, { headers: metricsHeaders })
      ).text();
      expect(metrics).toMatch(/launchdex_db_reads_total\{database="primary"\} [1-9]/);
      expect(metrics).toMatch(/launchdex_db_reads_total\{database="127\.0\.0\.1:\d+\/launchdex"\} [1-9]/);
    } finally {
      await pg.resumeReplay();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('the real server while its primary restarts: the replica answers reads, what needs the primary is 503 with Retry-After, health stays 200, ready says read_only', async () => {
    await pg.caughtUp();
    const image = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#3b5bdb' } })
      .png()
      .toBuffer();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'launchdex-replica-restart-'));
    const server = await startAppServer({
      DATABASE_URL: pg.primaryUrl,
      DATABASE_READ_URLS: pg.replicaUrl,
      REPLICA_POLL_MS: '100',
      // Uncached: every read goes to a database.
      READ_CACHE_MB: '0',
      DATA_DIR: dataDir,
      CURSOR_SECRET: 'replica-test-cursor-secret-0123456789',
    });
    const timed = async (url: string, init?: RequestInit) => {
      const started = performance.now();
      const response = await fetch(`${server.baseUrl}${url}`, {
        ...init,
        signal: AbortSignal.timeout(10_000),
      });
      const body = await response.text();
      return { status: response.status, headers: response.headers, body, ms: performance.now() - started };
    };
    // A steady read load from beside the test: every answer recorded.
    const statuses: { status: number; ms: number }[] = [];
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async (_, client) => {
        for (let i = 0; loading; i++) {
          const answer = await timed(`/api/v1/tokens?limit=${1 + ((i + client) % 20)}`).catch(() => ({
            status: 0,
            ms: 10_000,
          }));
          statuses.push({ status: answer.status, ms: answer.ms });
        }
      }),
    );
    try {
      await until(() => statuses.length > 20, 'reads under way');
      const indexed = Number((await timed('/api/v1/tokens?limit=1')).headers.get('x-indexed-through-block'));
      for (let round = 0; round < 3; round++) {
        await pg.stopPrimary();
        await until(
          async () => (await timed('/api/ready')).body.includes('"read_only"'),
          `round ${round}: ready says read_only`,
        );
        const ready = await timed('/api/ready');
        expect(ready.status).toBe(200);
        expect(JSON.parse(ready.body)).toMatchObject({
          status: 'read_only',
          indexer: { indexed_through_block: indexed },
        });
        const health = await timed('/api/health');
        expect(health.status).toBe(200);
        expect(JSON.parse(health.body)).toMatchObject({ status: 'degraded', database: { reachable: false } });
        expect(health.ms).toBeLessThan(1_500);
        // A read newer than the replica needs the primary: refused at once, with when to retry.
        const newer = await timed('/api/v1/tokens?limit=3', {
          headers: { 'x-min-indexed-block': String(indexed + 1) },
        });
        expect(newer.status).toBe(503);
        expect(newer.headers.get('retry-after')).toBe('1');
        expect(JSON.parse(newer.body).error.code).toBe('unavailable');
        expect(newer.ms).toBeLessThan(2_000);
        // A write (a draft upload) needs the primary too.
        const upload = new FormData();
        upload.append('name', 'Restart Test');
        upload.append('symbol', 'RST');
        upload.append('initial_supply', (10n ** 27n).toString());
        upload.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'image.png');
        const write = await timed('/api/v1/token-metadata', { method: 'POST', body: upload });
        expect(write.status, write.body).toBe(503);
        expect(write.headers.get('retry-after')).toBe('1');
        expect(write.ms).toBeLessThan(2_000);
        await pg.startPrimary();
        const upAt = performance.now();
        await until(
          async () => (await timed('/api/ready')).body.includes('"ready"'),
          `round ${round}: ready`,
        );
        expect(
          (await timed('/api/v1/tokens?limit=3', { headers: { 'x-min-indexed-block': '300' } })).status,
        ).toBe(200);
        expect(performance.now() - upAt).toBeLessThan(3_000);
      }
    } finally {
      loading = false;
      await load;
      await pg.startPrimary();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Reads the replica could answer were answered, every one, promptly.
    expect(statuses.filter((answer) => answer.status !== 200)).toEqual([]);
    expect(Math.max(...statuses.map((answer) => answer.ms))).toBeLessThan(2_000);
  }, 120_000);

  it('an instance started while the primary is down starts read-only from the replica and opens writes when the primary is back', async () => {
    // The cursor key lives in the database (no CURSOR_SECRET): the replica has it.
    await loadPersistedCursorSecret(primary.db);
    await pg.caughtUp();
    await pg.stopPrimary();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'launchdex-replica-start-'));
    let server: Awaited<ReturnType<typeof startAppServer>> | undefined;
    try {
      server = await startAppServer({
        DATABASE_URL: pg.primaryUrl,
        DATABASE_READ_URLS: pg.replicaUrl,
        REPLICA_POLL_MS: '100',
        DATA_DIR: dataDir,
      });
      const ready = await fetch(`${server.baseUrl}/api/ready`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { status: string }).status).toBe('read_only');
      const list = await fetch(`${server.baseUrl}/api/v1/tokens?limit=2`);
      expect(list.status).toBe(200);
      const { next_cursor: cursor } = (await list.json()) as Page;
      // Cursors are signed with the stored key, read from the replica.
      expect(
        (await fetch(`${server.baseUrl}/api/v1/tokens?limit=2&cursor=${encodeURIComponent(cursor ?? '')}`))
          .status,
      ).toBe(200);
      expect(server.output()).toContain('primary database unreachable at start');
      await pg.startPrimary();
      await until(
        async () => (await (await fetch(`${server?.baseUrl}/api/ready`)).json()).status === 'ready',
        'ready once the primary is back',
      );
    } finally {
      await pg.startPrimary();
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
