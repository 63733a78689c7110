import { sql } from 'drizzle-orm';
import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { parseResumeToken } from '../../shared/api/stream';
import { fundedAddress, reorgWithBuys, type TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import { indexToHead } from '../../test/indexer/harness';
import { AppliedStream, readQueued } from '../../test/stream-client';
import { readIndexedThroughBlock } from '../db/checkpoint';
import { type DatabaseHandle, selectRows } from '../db/client';
import { resumePoint } from './encode';
import { createStreamHub, type StreamHub } from './hub';

/*
 * Rule: every reorg is signalled (docs/api.md, "Live stream", Reorgs). A rollback and the
 * re-index after it may both land between two polls of the hub, the checkpoint ending higher
 * than before; a client resuming with an id from before a reorg it did not see. Either way the
 * client gets `reorg` with the lowest block that stayed, the canonical events after it and a
 * checkpoint, and what it applied equals what the database holds. The hub polls only when the
 * test says so (an hour-long pollMs, `refresh()`), so the race is not left to timing; the chain
 * is a real anvil, reorganized with anvil_reorg, and the real indexer repairs the index.
 */

const backends = await availableBackends();

let chain: TestChain;

simulatedChainForTests({ seed: 83, launches: 3, actions: 20 }, (started) => {
  chain = started.chain;
});

describe.each(backends)('stream across reorgs (%s)', (backend) => {
  let handle: DatabaseHandle;
  let trader: Address;
  let curves: Address[];
  let replacements = 0;
  // One write per block: a rollback to the ancestor undoes exactly the replaced blocks.
  const index = () => indexToHead(handle.db, chain, { chain: { maxRange: 1 } });

  testDatabaseForTests(
    backend,
    async (opened) => {
      handle = opened.handle;
      await index();
      trader = await fundedAddress(chain, 84);
      curves = (
        await selectRows<{ curve_address: Address }>(
          handle.db,
          sql`select curve_address from tokens where lifecycle = 'curve' order by created_block`,
        )
      ).map((row) => row.curve_address);
      expect(curves.length).toBeGreaterThan(0);
    },
    120_000,
  );

  function hub(): StreamHub {
    return createStreamHub({
      db: async () => handle.db,
      pollMs: 3_600_000,
      heartbeatMs: 3_600_000,
      maxQueued: 10_000,
      maxClients: 4,
    });
  }

  /** A client that has applied everything from the deployment on, caught up with `on`. */
  async function follow(on: StreamHub) {
    const applied = new AppliedStream();
    const subscriber = await on.subscribe({
      token: undefined,
      resumeFrom: resumePoint(`${chain.deployment.startBlock - 1}-0`, undefined),
    });
    if (!subscriber) throw new Error('no slot');
    const take = async () => {
      const frames = await readQueued(subscriber);
      for (const frame of frames) expect(applied.apply(frame), 'no reset').toBeUndefined();
      return frames;
    };
    await take();
    return { applied, subscriber, take };
  }

  /** What the database holds, keyed as a client keys what it applies. */
  async function indexed() {
    const rows = await selectRows<{ key: string }>(
      handle.db,
      sql`select 'launch:' || created_transaction_hash || ':' || created_log_index as key from tokens where not excluded
          union all select 'trade:' || transaction_hash || ':' || log_index from trades
          union all select 'graduation:' || transaction_hash || ':' || log_index from chain_events where kind = 'graduation'`,
    );
    return rows.map((row) => row.key).sort();
  }

  /** Buys in `blocks` new blocks (one each), indexed. */
  async function trade(blocks: number) {
    for (let i = 0; i < blocks; i++)
      await chain.actions.buy({ trader, token: await tokenOf(i), value: 10n ** 16n * BigInt(i + 1) });
    await index();
    return readIndexedThroughBlock(handle.db);
  }

  /** A hub, and a client of it that has applied `blocks` new blocks of buys (their head: `seen`). */
  async function followPastTrades(blocks: number) {
    const streams = hub();
    const client = await follow(streams);
    const seen = await trade(blocks);
    await streams.refresh();
    await client.take();
    return { streams, client, seen };
  }

  async function tokenOf(i: number): Promise<Address> {
    const [row] = await selectRows<{ address: Address }>(
      handle.db,
      sql`select address from tokens where curve_address = ${curves[i % curves.length]}`,
    );
    if (!row) throw new Error('no token');
    return row.address;
  }

  /**
   * Replaces the last `depth` blocks with blocks holding other buys, mines `extra` more and lets
   * the real indexer repair the index: rollback and re-index, in one go.
   */
  async function reorg(depth: number, extra: number) {
    replacements = await reorgWithBuys(chain.client, depth, curves, replacements, 777n);
    if (extra > 0) await chain.client.test.mine({ blocks: extra });
    const indexer = await index();
    expect(indexer.status.reorgs, 'the indexer rolled back').toBe(1);
  }

  it('a rollback and its re-index between two polls: reorg at the lowest block kept, the replacement events, a checkpoint; the client holds what the database holds', async () => {
    const streams = hub();
    const client = await follow(streams);
    expect(client.applied.keys('trade')).toEqual((await indexed()).filter((k) => k.startsWith('trade:')));
    const seen = await trade(3);
    await streams.refresh();
    const before = await client.take();
    expect(before.map((f) => f.type)).toEqual(['trade', 'trade', 'trade', 'checkpoint']);
    const heldBefore = client.applied.keys('trade');

    // Both land before the next poll, and the index ends above where it was: a poller comparing
    // checkpoints sees it move forward only.
    await reorg(3, 2);
    const head = await readIndexedThroughBlock(handle.db);
    expect(head).toBeGreaterThan(seen);
    const now = await indexed();
    expect(
      heldBefore.filter((key) => !now.includes(key)),
      'the reorg replaced trades the client holds',
    ).toHaveLength(3);

    await streams.refresh();
    const frames = await client.take();
    expect(frames[0]).toMatchObject({ type: 'reorg', data: { indexed_through_block: seen - 3 } });
    expect(parseResumeToken(frames[0]?.id ?? '')?.block).toBe(seen - 3);
    expect(frames.slice(1, -1).map((f) => f.type)).toEqual(['trade', 'trade', 'trade']);
    expect(frames.slice(1, -1).every((f) => Number(f.data.block_number) > seen - 3)).toBe(true);
    expect(frames.at(-1)).toMatchObject({ type: 'checkpoint', data: { indexed_through_block: head } });
    expect(client.applied.keys('trade')).toEqual(now.filter((k) => k.startsWith('trade:')));
    expect([...client.applied.events.keys()].sort()).toEqual(now);
    client.subscriber.close();
  });

  it('several rollbacks between two polls: one reorg at the lowest block any of them kept', async () => {
    const { streams, client, seen } = await followPastTrades(4);
    await reorg(2, 0);
    await reorg(4, 1);
    await reorg(1, 3);
    await streams.refresh();
    const frames = await client.take();
    expect(frames.filter((f) => f.type === 'reorg')).toHaveLength(1);
    expect(frames[0]).toMatchObject({ type: 'reorg', data: { indexed_through_block: seen - 4 } });
    expect(frames.at(-1)).toMatchObject({
      type: 'checkpoint',
      data: { indexed_through_block: await readIndexedThroughBlock(handle.db) },
    });
    expect([...client.applied.events.keys()].sort()).toEqual(await indexed());
    client.subscriber.close();
  });

  it('a resume with an id from before a reorg it did not see gets reorg, the canonical events after it and a checkpoint; a bare block id resumes as before', async () => {
    const { streams, client, seen } = await followPastTrades(3);
    const id = client.applied.lastId;
    expect(parseResumeToken(id ?? '')).toMatchObject({ block: seen });
    client.subscriber.close();
    const away = client.applied;

    // While it is away the chain reorganizes and the index is repaired; this hub's poller
    // stopped with its last client, so nothing of it remembers the old blocks.
    await reorg(2, 1);
    const resumed = await streams.subscribe({
      token: undefined,
      resumeFrom: resumePoint(id ?? '', undefined),
    });
    if (!resumed) throw new Error('no slot');
    const frames = await readQueued(resumed);
    for (const frame of frames) away.apply(frame);
    expect(frames[0]).toMatchObject({ type: 'reorg', data: { indexed_through_block: seen - 2 } });
    expect(
      frames.slice(1, -1).every((f) => f.type === 'trade' && Number(f.data.block_number) > seen - 2),
    ).toBe(true);
    expect(frames.at(-1)).toMatchObject({
      type: 'checkpoint',
      data: { indexed_through_block: await readIndexedThroughBlock(handle.db) },
    });
    expect([...away.events.keys()].sort()).toEqual(await indexed());
    resumed.close();

    // An id of an earlier version names no log entry: resumed from its block, no reorg.
    const bare = await streams.subscribe({
      token: undefined,
      resumeFrom: resumePoint(String(seen), undefined),
    });
    if (!bare) throw new Error('no slot');
    expect((await readQueued(bare)).map((f) => f.type)).not.toContain('reorg');
    bare.close();
  });

  it('an id newer than the poller is looked up again; one no index change matches gets reset', async () => {
    const streams = hub();
    const client = await follow(streams);
    // The index moves on after this hub's last poll: an id from another instance would be ahead.
    await trade(1);
    const [ahead] = await selectRows<{ seq: string | number; to_block: string | number }>(
      handle.db,
      sql`select seq, to_block from index_changes order by seq desc limit 1`,
    );
    const resumed = await streams.subscribe({
      token: undefined,
      resumeFrom: { block: Number(ahead?.to_block), seq: Number(ahead?.seq) },
    });
    if (!resumed) throw new Error('no slot');
    expect((await readQueued(resumed)).map((f) => f.type)).toEqual(['checkpoint']);
    resumed.close();
    const unknown = await streams.subscribe({
      token: undefined,
      resumeFrom: { block: Number(ahead?.to_block), seq: Number(ahead?.seq) + 1_000 },
    });
    if (!unknown) throw new Error('no slot');
    const frames = await readQueued(unknown);
    expect(frames.map((f) => f.type)).toEqual(['reset']);
    expect(frames[0]?.data.reason).toBe('resume point unknown to this index');
    unknown.close();
    client.subscriber.close();
  });
});
