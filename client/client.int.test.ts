import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Address, Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { indexedStackForTests } from '../test/app-server-hooks';
import { fundedAddress } from '../test/chain';
import { fetchFrom, freshLoopbackClient } from '../test/client-fetch';
import { availableBackends } from '../test/database';
import { buildOracle } from '../test/oracle/model';
import { type IndexedStack, startIndexedStack } from '../test/stack';
import { startStallProxy } from '../test/stall-proxy';
import {
  createLaunchdexClient,
  type Fetch,
  LaunchdexError,
  type RetryNotice,
  type StreamEvent,
} from './index';

/*
 * Rules: the typed client (client/, docs/api.md "Everywhere") walks any list to its last page,
 * waits out every 429 for its Retry-After and gives up with a LaunchdexError past its bounds,
 * and follows the stream across a silent connection by reconnecting with the last id; README's
 * example runs as written. Real anvil, real indexer, the production server, both backends.
 */

const backends = await availableBackends();
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const NO_METADATA: Hex = `0x${'00'.repeat(32)}`;

/**
 * Tight enough that a client reading at full speed is refused: a read the database answers costs
 * 20 requests of a 5-request burst refilled at 20 a second (Retry-After is then 1 s), while the
 * tests' own polls of /api/health (at most 10 a second) stay within it. Heartbeats every 0.5 s
 * keep a healthy stream from looking silent to a 1.5 s idle timeout.
 */
const serverEnv = {
  RATE_LIMIT_READS_PER_MINUTE: '1200',
  RATE_LIMIT_READS_BURST: '5',
  READ_MISS_COST: '20',
  STREAM_POLL_MS: '100',
  STREAM_HEARTBEAT_MS: '500',
};

/** A client of its own to the server's limits: its own loopback address; every send timed. */
function clientFetch(sends: number[] = []): Fetch {
  const send = fetchFrom(freshLoopbackClient());
  return (request) => {
    sends.push(Date.now());
    return send(request.url, { method: request.method, headers: request.headers, signal: request.signal });
  };
}

describe.each(backends)('the typed client against the real server (%s)', (backend) => {
  let stack: IndexedStack;
  let creator: Address;
  let trader: Address;
  indexedStackForTests(
    () => startIndexedStack(backend, { seed: 46, launches: 14, actions: 40 }, serverEnv),
    async (started) => {
      stack = started;
      creator = await fundedAddress(stack.chain, 46);
      trader = await fundedAddress(stack.chain, 47);
    },
  );

  /** A launch with a buy and a sell on chain (not waiting for the index). */
  async function launchAndTrade(name: string, symbol: string) {
    const { token } = await stack.chain.actions.launch({
      creator,
      name,
      symbol,
      supply: 10n ** 27n,
      metadataHash: NO_METADATA,
    });
    await stack.chain.actions.buy({ trader, token, value: 2n * 10n ** 18n });
    await stack.chain.actions.sell({ trader, token, amount: 10n ** 24n });
    return token.toLowerCase();
  }

  it('walks lists by cursor to the last page, waiting out each 429 for its Retry-After: every row as the chain oracle has it', async () => {
    const sends: number[] = [];
    const retries: (RetryNotice & { at: number })[] = [];
    const client = createLaunchdexClient({
      baseUrl: stack.server.baseUrl,
      fetch: clientFetch(sends),
      onRetry: (notice) => retries.push({ ...notice, at: Date.now() }),
    });
    const oracle = buildOracle({ view: await stack.readChainView() });

    const tokens = [];
    for await (const token of client.pages('/api/v1/tokens', { query: { limit: 4 } })) tokens.push(token);
    expect(tokens).toEqual(oracle.tokens());
    expect(tokens.length).toBe(14);

    const busiest = oracle.tokenAddresses
      .map((address) => ({ address, trades: oracle.trades(address).length }))
      .sort((a, b) => b.trades - a.trades)[0];
    expect(busiest?.trades).toBeGreaterThan(5);
    const address = busiest?.address ?? '';
    const trades = [];
    for await (const trade of client.pages('/api/v1/tokens/{address}/trades', {
      path: { address },
      query: { limit: 5 },
    }))
      trades.push(trade);
    expect(trades).toEqual(oracle.trades(address));

    // A page sent right after a read the database answered finds the budget spent: refused,
    // waited for as long as Retry-After said, sent again (and admitted: the wait drains the bucket).
    const pages = Math.ceil(tokens.length / 4) + Math.ceil(trades.length / 5);
    expect(retries.length).toBeGreaterThan(0);
    expect(sends.length).toBe(pages + retries.length);
    for (const retry of retries) {
      expect(retry).toMatchObject({ status: 429, method: 'GET', attempt: 1, waitMs: 1_000 });
      const next = sends.find((at) => at >= retry.at) ?? Number.POSITIVE_INFINITY;
      expect(next - retry.at).toBeGreaterThanOrEqual(990);
    }
  });

  it('gives up with a LaunchdexError naming the refusal: past maxAttempts, or at once for a Retry-After over maxWaitMs', async () => {
    async function untilRefused(options: { maxAttempts?: number; maxWaitMs?: number }) {
      const sends: number[] = [];
      const client = createLaunchdexClient({
        baseUrl: stack.server.baseUrl,
        fetch: clientFetch(sends),
        ...options,
      });
      // The first read is the database's (20 requests' worth): the next is refused.
      for (let i = 0; i < 20; i++) {
        const outcome = await client.api
          .GET('/api/v1/tokens', { params: { query: { limit: 2 } } })
          .catch((error: unknown) => error);
        if (outcome instanceof Error) return { error: outcome, sends: sends.length, request: i + 1 };
      }
      throw new Error('never refused');
    }
    const once = await untilRefused({ maxAttempts: 1 });
    expect(once.error).toBeInstanceOf(LaunchdexError);
    expect(once.error).toMatchObject({ status: 429, code: 'rate_limited', attempts: 1 });
    expect(once.error.message).toMatch(
      /^\/api\/v1\/tokens\?limit=2: 429 rate_limited: .+ \(gave up after 1 attempt\)$/,
    );
    expect(once.sends).toBe(once.request);

    const impatient = await untilRefused({ maxWaitMs: 500 });
    expect(impatient.error).toMatchObject({ status: 429, code: 'rate_limited', attempts: 1 });
    expect(impatient.error.message).toMatch(/\(Retry-After 1 s is longer than maxWaitMs 500 ms\)$/);
    // Not sent again: the caller decides whether to wait that long.
    expect(impatient.sends).toBe(impatient.request);
  });

  it('follows the stream across indexed launches and a connection gone silent: reconnects with the last id, every event once', async () => {
    const proxy = await startStallProxy(Number(new URL(stack.server.baseUrl).port));
    const send = clientFetch();
    const opened: (string | null)[] = [];
    const client = createLaunchdexClient({
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      fetch: (request) => {
        opened.push(request.headers.get('last-event-id'));
        return send(request);
      },
    });
    const events: StreamEvent[] = [];
    const stop = new AbortController();
    const following = (async () => {
      for await (const event of client.stream({ idleTimeoutMs: 1_500, signal: stop.signal }))
        events.push(event);
    })();
    const checkpointAt = (block: number) =>
      expect
        .poll(() => events.some((e) => e.type === 'checkpoint' && e.data.indexed_through_block >= block), {
          timeout: 30_000,
        })
        .toBe(true);
    try {
      await checkpointAt(await stack.waitForIndex());
      const alpha = await launchAndTrade('Client Alpha', 'CALF');
      await checkpointAt(await stack.waitForIndex());

      // No byte passes either way and no connection closes: only the idle timeout notices.
      proxy.stall();
      const beta = await launchAndTrade('Client Beta', 'CBET');
      const betaHead = await stack.waitForIndex();
      await expect.poll(() => opened.length, { timeout: 10_000 }).toBeGreaterThan(1);
      const lastId = [...events].reverse().find((e) => 'id' in e)?.id;
      proxy.resume();
      await checkpointAt(betaHead);

      expect(opened[0]).toBeNull();
      expect(new Set(opened.slice(1))).toEqual(new Set([lastId]));
      expect(events.some((e) => e.type === 'reset' || e.type === 'reorg')).toBe(false);
      const oracle = buildOracle({ view: await stack.readChainView() });
      for (const token of [alpha, beta]) {
        const own = events.filter((e) =>
          e.type === 'launch'
            ? e.data.address === token
            : e.type === 'trade' && e.data.token_address === token,
        );
        expect(own.map((e) => e.type)).toEqual(['launch', 'trade', 'trade']);
        expect(own.slice(1).map((e) => e.data)).toEqual([...oracle.trades(token)].reverse());
      }
    } finally {
      stop.abort();
      await following;
      await proxy.close();
    }
  });

  it('surfaces reset for a resume id this index cannot resume from, and stops on a refused stream', async () => {
    const client = createLaunchdexClient({ baseUrl: stack.server.baseUrl, fetch: clientFetch() });
    const head = await stack.waitForIndex();
    for (const [since, reason] of [
      ['1-1-00000000', 'resume point from another database'],
      ['yesterday', 'Last-Event-ID is not a stream id'],
    ]) {
      for await (const event of client.stream({ since })) {
        expect(event).toMatchObject({ type: 'reset', data: { indexed_through_block: head, reason } });
        expect('id' in event && event.id.startsWith(`${head}-`)).toBe(true);
        break;
      }
    }
    const refused = client.stream({ token: 'not-an-address' }).next();
    await expect(refused).rejects.toThrow(LaunchdexError);
    await expect(refused).rejects.toMatchObject({ status: 400, code: 'invalid_address' });
  });

  it("README's client example, run as written: every token by cursor, a 429 waited out, a launch followed live", async () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const code = /<!-- client example[^>]*-->\s*```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(code).toContain("from '@launchdex/client'");
    const directory = mkdtempSync(path.join(tmpdir(), 'launchdex-readme-client-'));
    let child: ReturnType<typeof spawn> | undefined;
    try {
      // Installed as README says (`npm install <checkout>/client` links the directory).
      mkdirSync(path.join(directory, 'node_modules', '@launchdex'), { recursive: true });
      symlinkSync(path.join(root, 'client'), path.join(directory, 'node_modules', '@launchdex', 'client'));
      for (const name of ['@types', 'tsx'])
        symlinkSync(path.join(root, 'node_modules', name), path.join(directory, 'node_modules', name));
      writeFileSync(path.join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
      writeFileSync(path.join(directory, 'example.ts'), code);
      writeFileSync(
        path.join(directory, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noUncheckedIndexedAccess: true,
            noEmit: true,
            target: 'es2022',
            module: 'esnext',
            moduleResolution: 'bundler',
            lib: ['es2022', 'dom'],
            types: ['node'],
            skipLibCheck: true,
          },
          files: ['example.ts'],
        }),
      );
      // The project's compiler; a failure prints its diagnostics in the rejection.
      await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', path.join(directory, 'tsconfig.json')]);

      const oracle = buildOracle({ view: await stack.readChainView() });
      let output = '';
      child = spawn(process.execPath, ['--import', 'tsx', 'example.ts'], {
        cwd: directory,
        env: { ...process.env, LAUNCHDEX_URL: stack.server.baseUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      // A failure shows everything the example printed (its errors included).
      const printed = (pattern: RegExp) => expect.poll(() => output, { timeout: 30_000 }).toMatch(pattern);
      await printed(/^indexed through \d+$/m);
      // The example shares its address with this test's stack: nothing of ours reads meanwhile.
      const gamma = await launchAndTrade('Client Gamma', 'CGAM');
      await printed(/^trade sell /m);

      const lines = output.trim().split('\n');
      const walked = lines.slice(
        0,
        lines.findIndex((line) => line.startsWith('indexed through')),
      );
      expect(walked.filter((line) => !line.startsWith('429'))).toEqual(
        oracle.tokens().map((token) => `${token.symbol} ${token.market_cap}`),
      );
      expect(walked.filter((line) => line.startsWith('429'))).toContain('429: retrying in 1000 ms');
      expect(lines).toContain('launch CGAM Client Gamma');
      expect(lines.some((line) => /^trade buy \d+$/.test(line))).toBe(true);
      expect(gamma).toMatch(/^0x[0-9a-f]{40}$/);
    } finally {
      child?.kill();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
