import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedAddress } from '../../../test/chain';
import { availableBackends } from '../../../test/database';
import { type IndexedStack, startIndexedStack } from '../../../test/stack';
import { excludeToken, includeToken } from '../../tokens/moderation';

const backends = await availableBackends();
const NO_METADATA: Hex = `0x${'00'.repeat(32)}`;

interface Page {
  items: { address: string }[];
}

describe.each(backends)('cached reads are never staler than the read model (%s)', (backend) => {
  let stack: IndexedStack;
  const get = async <T>(path: string) => {
    const answer = await fetch(`${stack.server.baseUrl}${path}`);
    expect(answer.status, path).toBe(200);
    return { body: (await answer.json()) as T, etag: answer.headers.get('etag') };
  };

  beforeAll(async () => {
    stack = await startIndexedStack(backend, { seed: 31, launches: 4, actions: 20 });
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('a read issued right after the index advances sees the new block, launch after launch', async () => {
    const creator = await fundedAddress(stack.chain, 70);
    for (let round = 0; round < 5; round++) {
      // Warm the cache with the current answers first: these are what must not be served again.
      const before = await get<Page & { next_cursor: string | null }>('/api/v1/tokens?limit=5');
      expect((await get<Page>('/api/v1/tokens?limit=5')).etag).toBe(before.etag);
      // The creator is unknown (404) before its first launch: that answer must not stick either.
      const creatorBefore = await fetch(`${stack.server.baseUrl}/api/v1/creators/${creator}`);
      const launchedBefore =
        creatorBefore.status === 200
          ? ((await creatorBefore.json()) as { tokens_launched: number }).tokens_launched
          : 0;

      const launched = await stack.chain.actions.launch({
        creator,
        name: `Fresh ${round}`,
        symbol: `FR${round}`,
        supply: 10n ** 27n,
        metadataHash: NO_METADATA,
      });
      const indexed = await stack.waitForIndex();
      const token = launched.token.toLowerCase();

      const after = await get<Page>('/api/v1/tokens?limit=5');
      expect(after.body.items[0]?.address).toBe(token);
      expect(after.etag).not.toBe(before.etag);
      const detail = await get<{ indexed_through_block: number }>(`/api/v1/tokens/${token}`);
      expect(detail.body.indexed_through_block).toBeGreaterThanOrEqual(indexed);
      const record = await get<{ tokens_launched: number }>(`/api/v1/creators/${creator}`);
      expect(record.body.tokens_launched).toBe(launchedBefore + 1);
    }
  });

  // PGlite lets one process open its database; moderation is a second writer on PostgreSQL only.
  if (backend === 'postgres')
    it('a moderation change is seen by the very next read', async () => {
      const list = await get<Page>('/api/v1/tokens?limit=100');
      const target = list.body.items[0]?.address;
      if (!target) throw new Error('no token to moderate');
      const handle = await stack.database.open();
      try {
        await excludeToken(handle.db, target, 'cache test');
        expect((await get<Page>('/api/v1/tokens?limit=100')).body.items.map((t) => t.address)).not.toContain(
          target,
        );
        await includeToken(handle.db, target);
        expect((await get<Page>('/api/v1/tokens?limit=100')).body.items.map((t) => t.address)).toContain(
          target,
        );
      } finally {
        await handle.close();
      }
    });
});
