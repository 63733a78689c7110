import { expect } from 'vitest';
import { indexedStackForTests } from './app-server-hooks';
import type { Backend } from './database';
import { type IndexedStack, startIndexedStack } from './stack';

/**
 * The read API suites' stack (read-api-parameters, read-api-chain): one indexed simulator chain
 * (seed 51, 26 launches, 300 actions) behind the real web front, with a graduated token and a
 * curve token that trades, and the two ways the suites read it.
 */

export interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  [key: string]: any;
}

export interface IndexedReadApi {
  stack: IndexedStack;
  /** The first 100 tokens of `/api/v1/tokens` once indexed. */
  tokens: Json[];
  graduated: Json;
  curveToken: Json;
}

/**
 * Starts the stack before the describe's tests and stops it after them; `started` hands it to the
 * caller's own bindings. Returns `get` (one answer, body parsed) and `walk` (every page of a list).
 */
export function readApiForTests(backend: Backend, started: (api: IndexedReadApi) => void) {
  let stack: IndexedStack | undefined;

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${(stack as IndexedStack).server.baseUrl}${path}`, { headers });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : null) as Json,
      headers: response.headers,
    };
  };
  const walk = async (path: string, limit: number, between?: (page: number) => Promise<void>) => {
    const items: Json[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 200; page++) {
      const separator = path.includes('?') ? '&' : '?';
      const { status, body }: { status: number; body: Json } = await get(
        `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(status, path).toBe(200);
      items.push(...body.items);
      cursor = body.next_cursor;
      if (cursor === null) return items;
      await between?.(page);
    }
    throw new Error('too many pages');
  };

  indexedStackForTests(
    () => startIndexedStack(backend, { seed: 51, launches: 26, actions: 300 }),
    async (indexed) => {
      stack = indexed;
      const tokens: Json[] = (await get('/api/v1/tokens?limit=100')).body.items;
      const graduated = tokens.find((t) => t.lifecycle === 'graduated') as Json;
      const curveToken = tokens.find((t) => t.lifecycle === 'curve' && t.trades_24h > 2) as Json;
      expect(graduated).toBeDefined();
      expect(curveToken).toBeDefined();
      started({ stack, tokens, graduated, curveToken });
    },
  );

  return { get, walk };
}
