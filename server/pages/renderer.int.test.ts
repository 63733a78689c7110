import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import { fixtureAddress, fixtureToken, insertTokens, setCheckpoint } from '../../test/fixtures';
import { closeTestProcess, startTestProcess } from '../../test/process';
import { bumpReadVersion } from '../db/read-version';
import type { PageServices } from '../handover';
import type { ServerProcess } from '../process';
import { type PageRenderer, startPageRenderer } from './renderer';

const backend = (await availableBackends())[0] ?? 'pglite';
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Rule (docs/decisions.md, "Pages render in their own thread"): Next.js runs in a worker thread
 * of the web server process and never in the thread that answers the API, while every page still
 * reads the process's own services. Proof: pages render this process's tokens, each through a
 * call counted on the process's caller; Next's server code is not loaded in this thread; errors,
 * share cards and their drawings cross both ways; a thread that dies is replaced.
 */
describe(`pages in their own thread (${backend})`, () => {
  let database: TestDatabase;
  let house: ServerProcess;
  let renderer: PageRenderer;
  let server: Server;
  let origin: string;
  const threads: Worker[] = [];
  const calls: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const handle = await database.open();
    await insertTokens(
      handle.db,
      Array.from({ length: 4 }, (_, i) => fixtureToken(i, { name: `Threaded Token ${i}` })),
    );
    await setCheckpoint(handle.db, 40);
    await bumpReadVersion(handle.db);
    await handle.close();
    house = await startTestProcess(database);
    // The process's reads, counted: a page's data must come from here.
    const { reads } = house.pages;
    const counting =
      <Args extends unknown[], Answer>(name: string, read: (...args: Args) => Promise<Answer>) =>
      (...args: Args) => {
        calls.push(name);
        return read(...args);
      };
    const counted: PageServices = {
      ...house.pages,
      reads: {
        tokens: counting('tokens', reads.tokens),
        trending: counting('trending', reads.trending),
        token: counting('token', reads.token),
        creator: counting('creator', reads.creator),
      },
    };
    server = createServer((incoming, outgoing) => void renderer.handle(incoming, outgoing));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    origin = `http://127.0.0.1:${port}`;
    renderer = await startPageRenderer({
      services: counted,
      root,
      hostname: '127.0.0.1',
      port,
      logger: house.logger,
      restartDelayMs: 50,
      onThread: (thread) => threads.push(thread),
    });
  }, 120_000);

  afterAll(async () => {
    await renderer?.close();
    server?.close();
    if (house) await closeTestProcess(house);
    await database?.drop();
  });

  it('renders the process’s tokens through its reads, with Next.js loaded only in the page thread', async () => {
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    for (let i = 0; i < 4; i++) expect(html).toContain(`Threaded Token ${i}`);
    expect(calls).toContain('tokens');

    // The control: the thread's copy of the seam reached this process's services.
    expect(threads).toHaveLength(1);
    // Next's server code was never loaded here, and Next installs its AsyncLocalStorage global
    // when it loads: neither is in this thread.
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.filter((file) => file.includes('/node_modules/next/dist/server/'))).toEqual([]);
    expect((globalThis as { AsyncLocalStorage?: unknown }).AsyncLocalStorage).toBeUndefined();
  });

  it('a not_found thrown by the process’s procedure is a 404 page, and an unknown token has no card', async () => {
    const unknown = fixtureAddress('token', 999);
    const page = await fetch(`${origin}/tokens/${unknown}`);
    expect(page.status).toBe(404);
    await page.text();
    expect(calls).toContain('token');

    const card = await fetch(`${origin}/tokens/${unknown}/opengraph-image`);
    expect(card.status).toBe(404);
    expect(card.headers.get('cache-control')).toBe('no-store');
    expect(await card.json()).toEqual({
      error: { code: 'not_found', message: 'no card: unknown or hidden token' },
    });
  });

  it('a card is drawn in the thread at the process’s request and kept in the process’s cache', async () => {
    const token = fixtureAddress('token', 1);
    const first = await fetch(`${origin}/tokens/${token}/opengraph-image`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('x-card-cache')).toBe('miss');
    const png = Buffer.from(await first.arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');

    const again = await fetch(`${origin}/tokens/${token}/opengraph-image`);
    expect(again.headers.get('x-card-cache')).toBe('hit');
    expect(Buffer.from(await again.arrayBuffer()).equals(png)).toBe(true);
  });

  it('a page thread that dies is replaced, and pages answer again', async () => {
    const [first] = threads;
    if (!first) throw new Error('no page thread was started');
    await first.terminate();
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Threaded Token 0');
    expect(threads).toHaveLength(2);
    expect(threads[1]?.threadId).not.toBe(first.threadId);
  });
});
