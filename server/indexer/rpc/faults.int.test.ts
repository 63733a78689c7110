import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../shared/http/retry-after';
import type { TestChain } from '../../../test/chain';
import { simulatedChainForTests } from '../../../test/chain-hooks';
import { availableBackends, createTestDatabase } from '../../../test/database';
import { dumpProjections, indexToHead } from '../../../test/indexer/harness';
import { startFaultProxy } from '../../../test/rpc-fault-proxy';
import { createRpcClient, RpcError, RpcRangeError } from './client';

const [backend] = await availableBackends();
let chain: TestChain;

simulatedChainForTests({ seed: 41, launches: 12, actions: 150 }, (started) => {
  chain = started.chain;
});

describe(`indexing through a faulty RPC (${backend})`, () => {
  it('converges to the same state through 429s, 5xx, timeouts, resets and a head that goes backwards', async () => {
    if (!backend) throw new Error('no backend');
    const proxy = await startFaultProxy(
      chain.anvil.rpcUrl,
      { rateLimit: 0.08, serverError: 0.08, hang: 0.03, reset: 0.06, staleHead: 0.3, maxLogRange: 8 },
      7,
    );
    const faulty = await createTestDatabase(backend);
    const clean = await createTestDatabase(backend);
    const a = await faulty.open();
    const b = await clean.open();
    let retries = 0;
    try {
      const indexer = await indexToHead(a.db, chain, {
        initialRange: 5,
        chain: { rpcUrl: proxy.url, maxRange: 64 },
        rpc: { timeoutMs: 400, backoffMs: 5, maxBackoffMs: 100, maxRetries: 30, onRetry: () => retries++ },
      });
      // A caught-up indexer keeps polling the head: a lagging node must not move it backwards.
      // (The pipeline indexes the whole chain in a few steps, so these polls are most of the
      // eth_blockNumber calls the stale-head fault can hit.)
      for (let i = 0; i < 12; i++) await indexer.step();
      await indexToHead(b.db, chain);
      expect(await dumpProjections(a.db)).toEqual(await dumpProjections(b.db));
    } finally {
      await proxy.close();
      await a.close();
      await b.close();
      await faulty.drop();
      await clean.drop();
    }
    // Every kind of fault actually happened, and the client retried through them.
    for (const kind of ['rateLimit', 'serverError', 'hang', 'reset', 'staleHead', 'rangeRefused'] as const) {
      expect(proxy.counts[kind], kind).toBeGreaterThan(0);
    }
    expect(retries).toBeGreaterThan(0);
  });
});

describe('RPC client', () => {
  it('honours Retry-After in seconds and as an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('waits for the Retry-After of a 429 before retrying', async () => {
    const waits: number[] = [];
    let calls = 0;
    const rpc = createRpcClient({
      url: 'http://127.0.0.1:1',
      sleep: async (ms) => {
        waits.push(ms);
      },
      fetch: async () => {
        calls++;
        if (calls === 1) return new Response('busy', { status: 429, headers: { 'retry-after': '2' } });
        return Response.json({ jsonrpc: '2.0', id: 1, result: '0x10' });
      },
    });
    expect(await rpc.request('eth_blockNumber', [])).toBe('0x10');
    expect(waits).toEqual([2000]);
  });

  it('gives up after maxRetries with a retryable error, and surfaces JSON-RPC errors at once', async () => {
    const rpc = createRpcClient({
      url: 'http://127.0.0.1:1',
      maxRetries: 2,
      sleep: async () => {},
      fetch: async () => new Response('x', { status: 503 }),
    });
    await expect(rpc.request('eth_blockNumber', [])).rejects.toThrow(/after 3 attempts/);
    // The indexer's loop waits before it steps again.
    await expect(rpc.request('eth_blockNumber', [])).rejects.toMatchObject({
      retry: 'later',
      retryable: true,
    });
    const failing = createRpcClient({
      url: 'http://127.0.0.1:1',
      fetch: async () =>
        Response.json({
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32005, message: 'query returned more than 10000 results' },
        }),
    });
    await expect(failing.request('eth_getLogs', [{}])).rejects.toBeInstanceOf(RpcRangeError);
    // A refused range is asked again at once, smaller.
    await expect(failing.request('eth_getLogs', [{}])).rejects.toMatchObject({ retry: 'now' });
    await expect(failing.request('eth_call', [{}])).rejects.toBeInstanceOf(RpcError);
  });
});
