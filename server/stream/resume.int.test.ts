import { sql } from 'drizzle-orm';
import type { Address, Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { parseResumeToken } from '../../shared/api/stream';
import { fundedAddress, type TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import { indexToHead } from '../../test/indexer/harness';
import { type Frame, readQueued } from '../../test/stream-client';
import { readIndexedThroughBlock } from '../db/checkpoint';
import { type DatabaseHandle, selectRows } from '../db/client';
import { resumePoint, retryDirective } from './encode';
import { createStreamHub, type StreamHub } from './hub';
import { readIndexChanges } from './read-changes';

/*
 * Rule: a resume always makes progress (docs/api.md, "Live stream", Resume). A replay is sent in
 * detail only when it fits half the client's queue (counting what `token=` keeps); otherwise the
 * client gets `reset` with the current block as its id, so the Last-Event-ID it reconnects with is
 * current and the replay that overflowed its queue is never attempted again. The real hub runs
 * against a real database holding a real indexed chain; nothing of ours is replaced.
 */

const backends = await availableBackends();
const NO_METADATA: Hex = `0x${'00'.repeat(32)}`;
const MAX_QUEUED = 4;

let chain: TestChain;

simulatedChainForTests({ seed: 73, launches: 3, actions: 30 }, (started) => {
  chain = started.chain;
});

describe.each(backends)('stream resume (%s)', (backend) => {
  let handle: DatabaseHandle;
  let trader: Address;

  testDatabaseForTests(
    backend,
    async (opened) => {
      handle = opened.handle;
      await indexToHead(handle.db, chain);
      trader = await fundedAddress(chain, 74);
    },
    120_000,
  );

  function hub(maxQueued = MAX_QUEUED): StreamHub {
    return createStreamHub({
      db: async () => handle.db,
      pollMs: 50,
      heartbeatMs: 60_000,
      maxQueued,
      maxClients: 4,
    });
  }

  /**
   * One connection as the route makes it (subscribe, then the `retry:` directive) and as
   * EventSource reads it: every event queued for it, and the last `id:` it would send back.
   */
  async function connect(on: StreamHub, lastEventId: string | undefined, token?: string) {
    const subscriber = await on.subscribe({ token, resumeFrom: resumePoint(lastEventId ?? null, undefined) });
    if (!subscriber) throw new Error('no slot');
    subscriber.sendRaw(retryDirective(3_000));
    expect(subscriber.closed, 'the catch-up itself never overflows').toBe(false);
    const frames = await readQueued(subscriber);
    const ids = frames.flatMap((f) => (f.id === undefined ? [] : [f.id]));
    const last = ids.at(-1);
    return {
      subscriber,
      frames,
      types: frames.map((f) => f.type),
      lastEventId: last,
      /** The block of the last id. */
      lastBlock: last === undefined ? undefined : parseResumeToken(last)?.block,
    };
  }

  async function launch(name: string) {
    const launched = await chain.actions.launch({
      creator: await fundedAddress(chain, 75),
      name,
      symbol: name.slice(-4).toUpperCase(),
      supply: 10n ** 27n,
      metadataHash: NO_METADATA,
    });
    return launched.token;
  }

  async function buy(token: Address, times: number) {
    for (let i = 0; i < times; i++) await chain.actions.buy({ trader, token, value: 10n ** 17n });
    await indexToHead(handle.db, chain);
    return readIndexedThroughBlock(handle.db);
  }

  it('a resume whose replay would overflow the queue gets reset at the current block; reconnecting with that id catches up without overflow', async () => {
    const resumeFrom = chain.deployment.startBlock;
    const head = await readIndexedThroughBlock(handle.db);
    // The replay is larger than the whole queue: before, every such resume overflowed, and the
    // client reconnected from the same id every 3 s, for ever.
    const replay = await readIndexChanges(handle.db, resumeFrom, head, 5_000);
    expect(replay.truncated).toBe(false);
    expect(replay.events.length).toBeGreaterThan(MAX_QUEUED);
    expect(head - resumeFrom).toBeLessThanOrEqual(1_000);

    const streams = hub();
    const first = await connect(streams, String(resumeFrom));
    expect(first.types).toEqual(['reset']);
    expect(first.frames[0]?.data).toEqual({
      indexed_through_block: head,
      reason: 'replay too large for the client queue',
    });
    expect(first.lastBlock).toBe(head);
    // The connection goes on live after its reset.
    expect(streams.subscribers).toBe(1);
    first.subscriber.close();

    // EventSource reconnects with the id it received: nothing is missing, nothing overflows.
    for (let attempt = 0; attempt < 3; attempt++) {
      const again = await connect(streams, first.lastEventId);
      expect(again.types).toEqual(['checkpoint']);
      expect(again.lastBlock).toBe(head);
      expect(again.lastEventId).toBe(first.lastEventId);
      again.subscriber.close();
    }
    expect(streams.slots).toBe(0);
    expect(streams.polling).toBe(false);
  });

  it('ids carry this database; an id of another database gets reset, one of this database resumes', async () => {
    const streams = hub();
    const head = await readIndexedThroughBlock(handle.db);
    const [row] = await selectRows<{ value: string }>(
      handle.db,
      sql`select value from service_secrets where name = 'database_id'`,
    );
    const database = row?.value ?? '';
    expect(database).toMatch(/^[0-9a-f]{8}$/);
    const bare = await connect(streams, String(head));
    bare.subscriber.close();
    const id = bare.lastEventId ?? '';
    expect(id).toMatch(new RegExp(`^${head}-\\d+-${database}$`));
    const own = await connect(streams, id);
    expect(own.types).toEqual(['checkpoint']);
    own.subscriber.close();
    const foreign = await connect(
      streams,
      id.replace(database, database === '00000000' ? '00000001' : '00000000'),
    );
    expect(foreign.types).toEqual(['reset']);
    expect(foreign.frames[0]?.data).toEqual({
      indexed_through_block: head,
      reason: 'resume point from another database',
    });
    expect(foreign.lastEventId).toBe(id);
    foreign.subscriber.close();
  });

  it('a client reset on resume receives the following advances in detail', async () => {
    const streams = hub();
    const resumed = await connect(streams, String(chain.deployment.startBlock));
    expect(resumed.types).toEqual(['reset']);
    const head = await buy(await launch('Resume Live'), 1);
    const frames: Frame[] = [];
    await expect
      .poll(
        async () => {
          frames.push(...(await readQueued(resumed.subscriber)));
          return parseResumeToken(frames.at(-1)?.id ?? '')?.block === head;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(frames.map((f) => f.type).filter((t) => t !== 'checkpoint')).toEqual(['launch', 'trade']);
    expect(resumed.subscriber.closed).toBe(false);
    resumed.subscriber.close();
  });

  it('a replay that fits half the queue, its checkpoint included, is sent in detail; one event more is reset', async () => {
    const launched = await launch('Resume Fit');
    await indexToHead(handle.db, chain);
    const before = await readIndexedThroughBlock(handle.db);
    const head = await buy(launched, 2);

    // Two trades and the checkpoint: 3 chunks fit half of a queue of 6, not half of 5.
    const fits = await connect(hub(6), String(before));
    expect(fits.types).toEqual(['trade', 'trade', 'checkpoint']);
    expect(fits.lastBlock).toBe(head);
    fits.subscriber.close();
    const over = await connect(hub(5), String(before));
    expect(over.types).toEqual(['reset']);
    expect(over.lastBlock).toBe(head);
    over.subscriber.close();

    // token= counts only what it keeps: from the start of the chain, this token has its launch
    // and two trades, while the whole stream has far more than the queue.
    const token = launched.toLowerCase();
    const own = await connect(hub(8), String(chain.deployment.startBlock), token);
    expect(own.types).toEqual(['launch', 'trade', 'trade', 'checkpoint']);
    expect(
      own.frames.slice(0, 3).every((f) => f.data.address === token || f.data.token_address === token),
    ).toBe(true);
    own.subscriber.close();
    const whole = await connect(hub(8), String(chain.deployment.startBlock));
    expect(whole.types).toEqual(['reset']);
    whole.subscriber.close();
  });

  it('a bare block id above the index gets a reorg to the current block, then its checkpoint', async () => {
    const head = await readIndexedThroughBlock(handle.db);
    const ahead = await connect(hub(), String(head + 5));
    expect(ahead.types).toEqual(['reorg', 'checkpoint']);
    expect(ahead.frames[0]?.data).toEqual({ indexed_through_block: head });
    expect(ahead.lastBlock).toBe(head);
    ahead.subscriber.close();
  });
});
