import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_MAX_MATCHES } from '../../../shared/search-text';
import { type AppServer, metricsHeaders, startAppServer } from '../../../test/app-server';
import { indexedStackForTests } from '../../../test/app-server-hooks';
import { fetchFrom, freshLoopbackClient } from '../../../test/client-fetch';
import { availableBackends } from '../../../test/database';
import { type IndexedStack, startIndexedStack } from '../../../test/stack';

const backends = await availableBackends();

/** The read cache's outcome counters of a server, from its Prometheus text. */
async function cacheCounts(baseUrl: string) {
  const text = await (await fetch(`${baseUrl}/api/metrics`, { headers: metricsHeaders })).text();
  const count = (result: string) =>
    Number(
      new RegExp(`^launchdex_read_cache_requests_total\\{result="${result}"\\} (\\d+)`, 'm').exec(
        text,
      )?.[1] ?? 0,
    );
  return { hit: count('hit'), miss: count('miss'), joined: count('joined') };
}

const delta = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));

describe.each(backends)('what a read costs (%s)', (backend) => {
  let stack: IndexedStack;
  let token: string;

  // The simulator's activity is all on the chain before the server starts: once indexed, the
  // read model stays at one version, so cache outcomes are the tests' own.
  // Reads held behind a lock below must outlive the lock, not the statement timeout.
  indexedStackForTests(
    () =>
      startIndexedStack(
        backend,
        { seed: 27, launches: 5, actions: 40 },
        // Two slots (the default is one) so that "bounded" is told apart from "serialized".
        { READ_STATEMENT_TIMEOUT_MS: '30000', DATABASE_SLOTS_PER_CLIENT: '2' },
      ),
    async (started) => {
      stack = started;
      const page = (await (await fetch(`${stack.server.baseUrl}/api/v1/tokens?limit=1`)).json()) as {
        items: { address: string }[];
      };
      token = page.items[0]?.address as string;
    },
  );

  it('keys are the parsed input: address case, parameter order, defaults and unknown parameters share one entry', async () => {
    const base = stack.server.baseUrl;
    const first = await fetch(`${base}/api/v1/tokens/${token}/trades`);
    expect(first.status).toBe(200);
    const before = await cacheCounts(base);
    const spellings = [
      `/api/v1/tokens/${token.toUpperCase().replace('0X', '0x')}/trades`,
      `/api/v1/tokens/${token}/trades?limit=20`,
      `/api/v1/tokens/${token}/trades?utm_source=x&limit=20`,
    ];
    for (const spelling of spellings) {
      const response = await fetch(`${base}${spelling}`);
      expect(response.status, spelling).toBe(200);
      expect(response.headers.get('etag'), spelling).toBe(first.headers.get('etag'));
    }
    expect(delta(before, await cacheCounts(base))).toEqual({ hit: 3, miss: 0, joined: 0 });
  });

  it('sixteen clients missing the same answer at once cost one computation', async () => {
    const base = stack.server.baseUrl;
    const before = await cacheCounts(base);
    const clients = Array.from({ length: 16 }, () => fetchFrom(freshLoopbackClient()));
    const answers = await Promise.all(
      clients.map((get) => get(`${base}/api/v1/tokens/${token}/holders?limit=7`)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(200));
    const bodies = new Set(await Promise.all(answers.map((a) => a.text())));
    expect(bodies.size).toBe(1);
    const outcomes = delta(before, await cacheCounts(base));
    expect(outcomes.miss).toBe(1);
    expect((outcomes.hit ?? 0) + (outcomes.joined ?? 0)).toBe(15);
  });

  it('a search matching more names than it may sort is refused with 400 before anything is sorted', async () => {
    // The chain's tokens are few; the broad prefix is made of search terms written straight into
    // the read model (PostgreSQL: PGlite admits no second process while the server runs).
    if (backend !== 'postgres') return;
    const handle = await stack.database.open();
    try {
      await handle.exec(`insert into token_search_terms (term, token_address, kind)
        select 'zzbroad' || g, '${token}', 2 from generate_series(1, ${SEARCH_MAX_MATCHES + 1}) g`);
    } finally {
      await handle.close();
    }
    const base = stack.server.baseUrl;
    for (const path of [
      '/api/v1/tokens?search=zz',
      '/api/v1/tokens?search=ZZBroad',
      '/api/v1/tokens/trending?search=zzb',
    ]) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(400);
      const body = (await response.json()) as {
        error: { code: string; message: string; details: { field: string }[] };
      };
      expect(body.error.code).toBe('invalid_parameter');
      expect(body.error.message).toMatch(/matches more than 2,000 names and symbols: type more of it/);
      expect(body.error.details[0]?.field).toBe('search');
    }
    // One character more and the matches fit: the token is found by its word term.
    const narrow = await fetch(`${base}/api/v1/tokens?search=zzbroad1999`);
    expect(narrow.status).toBe(200);
    expect(((await narrow.json()) as { items: { address: string }[] }).items.map((t) => t.address)).toEqual([
      token,
    ]);
    // An address prefix that all tokens share is under the bound on this small chain.
    expect((await fetch(`${base}/api/v1/tokens?search=0x`)).status).toBe(200);
  });

  // The pool and its sessions are PostgreSQL's; PGlite runs one statement at a time anyway.
  if (backend === 'postgres')
    describe('one client holds a bounded share of the database', () => {
      let bounded: AppServer;
      beforeAll(async () => {
        // A second server on the same database, without an indexer: short statement timeout,
        // tight read budget, its own cache.
        bounded = await startAppServer({
          ...stack.database.env,
          INDEXER_MODE: 'off',
          READ_STATEMENT_TIMEOUT_MS: '400',
          // Two a minute: the bucket does not refill noticeably while a test spends it.
          RATE_LIMIT_READS_PER_MINUTE: '2',
          RATE_LIMIT_READS_BURST: '20',
          READ_MISS_COST: '4',
        });
      }, 120_000);
      afterAll(async () => {
        await bounded?.stop();
      });

      /** Runs `during` while a transaction holds `tokens` locked, so every read of it waits. */
      async function withTokensLocked<T>(during: (admin: postgres.Sql) => Promise<T>): Promise<T> {
        const admin = postgres(stack.database.env.DATABASE_URL as string, { max: 2, onnotice: () => {} });
        let unlock: () => void = () => {};
        const held = new Promise<void>((resolve) => {
          unlock = resolve;
        });
        let locked: () => void = () => {};
        const isLocked = new Promise<void>((resolve) => {
          locked = resolve;
        });
        const transaction = admin.begin(async (tx) => {
          await tx`lock table tokens in access exclusive mode`;
          locked();
          await held;
        });
        try {
          await isLocked;
          return await during(admin);
        } finally {
          unlock();
          await transaction;
          await admin.end();
        }
      }

      /** Sessions of the web pools waiting for the lock on `tokens`. */
      const waiting = async (admin: postgres.Sql) => {
        const [row] = await admin<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
          where application_name = 'launchdex' and wait_event_type = 'Lock' and datname = current_database()`;
        return row?.n ?? 0;
      };
      const until = async (check: () => Promise<boolean>, ms: number) => {
        const deadline = Date.now() + ms;
        while (!(await check())) {
          if (Date.now() > deadline) return false;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        return true;
      };

      it('a client with sixteen concurrent misses occupies two sessions; another client still gets its own', async () => {
        const greedy = fetchFrom(freshLoopbackClient());
        const other = fetchFrom(freshLoopbackClient());
        const reads = await withTokensLocked(async (admin) => {
          const greedyReads = Array.from({ length: 16 }, (_, i) =>
            greedy(`${stack.server.baseUrl}/api/v1/tokens?limit=${i + 1}`),
          );
          expect(await until(async () => (await waiting(admin)) >= 2, 5_000)).toBe(true);
          // Give the other fourteen every chance to reach the database: they must not.
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect(await waiting(admin)).toBe(2);
          const otherReads = [1, 2, 3].map((i) =>
            other(`${stack.server.baseUrl}/api/v1/tokens/newest?limit=${40 + i}`),
          );
          expect(await until(async () => (await waiting(admin)) === 4, 5_000)).toBe(true);
          return [...greedyReads, ...otherReads];
        });
        // Once the lock is gone every read is answered: queued, not refused.
        for (const response of await Promise.all(reads)) expect(response.status).toBe(200);
      });

      it('tRPC calls take slots of the same share, whatever client header a request forges', async () => {
        const client = fetchFrom(freshLoopbackClient());
        // Three batches of two calls, each naming itself another client: if the name were taken,
        // six calls would reach the database at once.
        const batch = (first: number, from = client) => {
          const input = encodeURIComponent(
            JSON.stringify({ 0: { json: { limit: first } }, 1: { json: { limit: first + 1 } } }),
          );
          return from(`${stack.server.baseUrl}/api/trpc/tokens.list,tokens.list?batch=1&input=${input}`, {
            headers: { 'x-launchdex-client': `forged-${first}` },
          });
        };
        const responses = await withTokensLocked(async (admin) => {
          const batches = [11, 21, 31].map((first) => batch(first));
          expect(await until(async () => (await waiting(admin)) >= 2, 5_000)).toBe(true);
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect(await waiting(admin)).toBe(2);
          // Shares are per client, not one for all of tRPC: another client's batch runs beside it.
          batches.push(batch(41, fetchFrom(freshLoopbackClient())));
          expect(await until(async () => (await waiting(admin)) === 4, 5_000)).toBe(true);
          return batches;
        });
        for (const response of await Promise.all(responses)) {
          expect(response.status).toBe(200);
          expect(((await response.json()) as unknown[]).length).toBe(2);
        }
      });

      it('a read past READ_STATEMENT_TIMEOUT_MS is cancelled and answered 503 with Retry-After', async () => {
        const client = fetchFrom(freshLoopbackClient());
        const response = await withTokensLocked(() => client(`${bounded.baseUrl}/api/v1/tokens?limit=3`));
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
        const body = (await response.json()) as { error: { code: string } };
        expect(body.error.code).toBe('unavailable');
        // The pool's session survived its cancelled statement.
        expect((await client(`${bounded.baseUrl}/api/v1/tokens?limit=3`)).status).toBe(200);
      });

      it('answers from the database cost READ_MISS_COST of the read budget, answers from memory one', async () => {
        const statuses = async (paths: (i: number) => string) => {
          const get = fetchFrom(freshLoopbackClient());
          const seen: number[] = [];
          for (let i = 0; i < 20; i++) seen.push((await get(`${bounded.baseUrl}${paths(i)}`)).status);
          return seen;
        };
        // Burst 20: the same URL twenty times is one miss (4) and 16 hits (1 each) before the bucket is empty.
        const repeated = await statuses(() => '/api/v1/tokens/newest?limit=9');
        expect(repeated.filter((s) => s === 200).length).toBe(17);
        // Twenty different URLs: every one a miss, five fit.
        const varied = await statuses((i) => `/api/v1/tokens/newest?limit=${60 + i}`);
        expect(varied.filter((s) => s === 200).length).toBe(5);
        expect(varied.slice(5).every((s) => s === 429)).toBe(true);
        // A read the database answers with an error cost it as much: unknown tokens, every one a 404.
        const unknown = await statuses(
          (i) => `/api/v1/tokens/0x${(0xdead00 + i).toString(16).padStart(40, '0')}`,
        );
        expect(unknown.slice(0, 5)).toEqual([404, 404, 404, 404, 404]);
        expect(unknown.slice(5).every((s) => s === 429)).toBe(true);
      });
    });
});
