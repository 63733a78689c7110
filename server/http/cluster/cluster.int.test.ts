import { connect, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { type AppServer, metricsHeaders } from '../../../test/app-server';
import { appServerForTests } from '../../../test/app-server-hooks';
import { isProcessAlive } from '../../../test/child-process';
import { fetchFrom, freshLoopbackClient } from '../../../test/client-fetch';
import { availableBackends, type TestDatabase } from '../../../test/database';
import { addWebhookTarget } from '../../webhooks/targets';

/**
 * Rules (docs/security.md, "Every limit and its default"; docs/decisions.md, "Web workers"): with
 * `--workers N` requests are served by every worker, yet a client's rate bucket, its upload and
 * stream slots and its connections per address are counted once for all workers, not once per
 * worker; a worker that dies is replaced; stopping the primary stops every worker; PGlite runs one.
 */
const backends = await availableBackends();
const workerOf = (response: Response) => Number(response.headers.get('launchdex-worker'));
const READS_BURST = 10;
const CONNECTIONS = 6;

/** `count` connections from `localAddress`, each sending one request and staying open. */
async function holdConnections(port: number, localAddress: string, count: number) {
  const sockets: Socket[] = [];
  const answers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<string>((resolve) => {
          const socket = connect({ port, host: '127.0.0.1', localAddress });
          sockets.push(socket);
          let text = '';
          socket.on('connect', () => socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n'));
          socket.on('data', (chunk) => {
            text += chunk.toString('latin1');
            // The head is all this needs: the status and which worker answered.
            if (text.includes('\r\n\r\n')) resolve(text);
          });
          socket.on('error', () => resolve(text));
          socket.on('close', () => resolve(text));
          setTimeout(() => resolve(text), 5_000);
        }),
    ),
  );
  return {
    answers,
    close: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

// Declared only where PostgreSQL runs (PGlite admits one process): absent, not skipped, elsewhere.
if (backends.includes('postgres'))
  describe('npm run serve --workers 2 (postgres)', () => {
    let server: AppServer;
    let port: number;
    let database: TestDatabase;

    appServerForTests(
      'postgres',
      {
        // One more read every 10 s: nothing refills while a test runs.
        RATE_LIMIT_READS_PER_MINUTE: '6',
        RATE_LIMIT_READS_BURST: String(READS_BURST),
        // Each worker's cache misses its first read: counted as one request here, this suite
        // proves one bucket across workers (the cost of a miss: read-cost.int.test.ts).
        READ_MISS_COST: '1',
        STREAMS_PER_CLIENT: '2',
        CONNECTIONS_PER_CLIENT: String(CONNECTIONS),
      },
      (started) => {
        server = started.server;
        database = started.database;
        port = Number(new URL(server.baseUrl).port);
      },
      { server: { workers: 2 }, hookTimeoutMs: 180_000 },
    );

    it('runs two workers and both serve requests', async () => {
      const workers = server.workerPids();
      expect(workers).toHaveLength(2);
      const served = new Set<number>();
      for (let i = 0; i < 6; i++) {
        const response = await fetchFrom(freshLoopbackClient())(`${server.baseUrl}/api/health`);
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        served.add(workerOf(response));
      }
      expect([...served].sort()).toEqual([...workers].sort());
    });

    it('/api/metrics on any worker counts the requests of every worker', async () => {
      const wallet = `0x${'7'.repeat(40)}`;
      const servedBy = new Set<number>();
      const requests = 8;
      for (let i = 0; i < requests; i++) {
        const response = await fetchFrom(freshLoopbackClient())(
          `${server.baseUrl}/api/v1/wallets/${wallet}/holdings`,
        );
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        servedBy.add(workerOf(response));
      }
      expect(servedBy.size).toBe(2);
      const scrapedBy = new Set<number>();
      for (let i = 0; i < 6; i++) {
        const response = await fetchFrom(freshLoopbackClient())(`${server.baseUrl}/api/metrics`, {
          headers: metricsHeaders,
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('launchdex-metrics-workers')).toBe('2');
        const text = await response.text();
        const count =
          /^launchdex_http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/wallets\/\{address\}\/holdings"[^}]*status="2xx"[^}]*\} (\d+)$/m.exec(
            text,
          );
        expect(Number(count?.[1])).toBe(requests);
        scrapedBy.add(workerOf(response));
      }
      expect(scrapedBy.size).toBe(2);
    });

    it("/api/metrics sums the workers' stream capacity, and counts webhook targets (read from the database) once", async () => {
      const handle = await database.open();
      try {
        const { id } = await addWebhookTarget(handle.db, {
          url: 'https://hooks.example/x',
          tokenAddress: null,
          events: ['trade'],
        });
        await handle.db.execute(
          sql`update webhook_targets set failing_since = now() - interval '25 hours' where id = ${id}`,
        );
      } finally {
        await handle.close();
      }
      const scrape = async () => {
        const response = await fetchFrom(freshLoopbackClient())(`${server.baseUrl}/api/metrics`, {
          headers: metricsHeaders,
        });
        expect(response.headers.get('launchdex-metrics-workers')).toBe('2');
        const text = await response.text();
        return (series: string) =>
          Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
      };
      // A scrape within 250 ms of the last may share its read of the database.
      await expect.poll(async () => (await scrape())('launchdex_webhook_targets{state="failing"}')).toBe(1);
      const value = await scrape();
      expect(value('launchdex_webhook_targets{state="failing"}')).toBe(1);
      expect(value('launchdex_stream_max_clients')).toBe(2 * 1000);
      expect(value('launchdex_webhook_targets{state="ok"}')).toBe(0);
    });

    it('a client whose requests reach both workers gets its read burst once, not once per worker', async () => {
      // Five connections kept alive (under the cap of six), handed to the workers in turn.
      const dispatcher = new Agent({ localAddress: freshLoopbackClient(), connections: 5 });
      const client = (url: string) => undiciFetch(url, { dispatcher }) as unknown as Promise<Response>;
      const responses: Response[] = [];
      for (let round = 0; round < 4; round++) {
        const batch = await Promise.all(
          Array.from({ length: 5 }, () => client(`${server.baseUrl}/api/v1/tokens?limit=1`)),
        );
        await Promise.all(batch.map((response) => response.arrayBuffer()));
        responses.push(...batch);
      }
      const served = responses.filter((response) => response.status === 200);
      const refused = responses.filter((response) => response.status === 429);
      expect(served).toHaveLength(READS_BURST);
      expect(refused).toHaveLength(READS_BURST);
      expect(new Set(served.map(workerOf)).size).toBe(2);
      expect(new Set(refused.map(workerOf)).size).toBe(2);
      for (const response of refused) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      // The next request, on whichever worker, is still refused.
      expect((await client(`${server.baseUrl}/api/health`)).status).toBe(429);
      await dispatcher.close();
    });

    it('stream slots are per client across workers: two held on two workers, the third refused', async () => {
      const client = fetchFrom(freshLoopbackClient());
      const aborts = [new AbortController(), new AbortController(), new AbortController()];
      try {
        const open = async (abort: AbortController) => {
          const response = await client(`${server.baseUrl}/api/v1/stream`, { signal: abort.signal });
          if (response.status !== 200) await response.arrayBuffer();
          return response;
        };
        const first = await open(aborts[0] as AbortController);
        const second = await open(aborts[1] as AbortController);
        expect([first.status, second.status]).toEqual([200, 200]);
        // Each worker holds one: counted per worker, a third would fit on either.
        expect(workerOf(first)).not.toBe(workerOf(second));
        const third = await open(aborts[2] as AbortController);
        expect(third.status).toBe(429);
      } finally {
        for (const abort of aborts) abort.abort();
      }
    });

    it('connections per address are capped across workers, and freed when they close', async () => {
      const address = freshLoopbackClient();
      const held = await holdConnections(port, address, CONNECTIONS + 2);
      const answered = held.answers.filter((text) => text.startsWith('HTTP/1.1 '));
      // Counted per worker (6 each) all eight would be served: the primary counts them once.
      expect(answered).toHaveLength(CONNECTIONS);
      const workers = new Set(answered.map((text) => /launchdex-worker: (\d+)/i.exec(text)?.[1]));
      expect(workers.size).toBe(2);
      held.close();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Answered, if only with 429 once the address has spent its read burst.
      const again = await holdConnections(port, address, CONNECTIONS);
      expect(again.answers.filter((text) => text.startsWith('HTTP/1.1 '))).toHaveLength(CONNECTIONS);
      again.close();
    });

    it('a worker that dies is replaced, and the log says so', async () => {
      const [victim, survivor] = server.workerPids();
      process.kill(victim as number, 'SIGKILL');
      const deadline = Date.now() + 60_000;
      let workers: number[] = [];
      for (;;) {
        workers = server.workerPids();
        if (workers.length === 2 && !workers.includes(victim as number)) break;
        if (Date.now() > deadline) throw new Error(`no replacement worker:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(workers).toContain(survivor);
      expect(server.output()).toMatch(/web worker exited \(signal SIGKILL\); replacing it/);
      const replacement = workers.find((pid) => pid !== survivor) as number;
      // Serving once it is ready: the new worker answers in its turn.
      const served = new Set<number>();
      for (let i = 0; i < 40 && !served.has(replacement); i++) {
        const response = await fetchFrom(freshLoopbackClient())(`${server.baseUrl}/api/health`);
        await response.arrayBuffer();
        served.add(workerOf(response));
        if (!served.has(replacement)) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(served).toContain(replacement);
    }, 90_000);

    it('stopping the server stops every worker', async () => {
      const workers = server.workerPids();
      expect(workers).toHaveLength(2);
      await server.stop();
      expect([server.pid, ...workers].filter(isProcessAlive)).toEqual([]);
    });
  });

describe('npm run serve --workers 2 on PGlite', () => {
  let server: AppServer;
  appServerForTests(
    'pglite',
    {},
    (started) => {
      server = started.server;
    },
    { server: { workers: 2 }, hookTimeoutMs: 180_000 },
  );

  it('serves from one process, and says why', async () => {
    expect(server.output()).toContain(
      'PGlite is a single-process embedded database: serving with 1 worker, not 2',
    );
    expect(server.output()).toContain('(1 worker, embedded PGlite admits one process)');
    const response = await fetch(`${server.baseUrl}/api/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('launchdex-worker')).toBeNull();
  });
});
