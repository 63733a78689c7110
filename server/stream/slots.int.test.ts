import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { ResumeToken } from '../../shared/api/stream';
import { fundedAddress, type TestChain } from '../../test/chain';
import { simulatedChainForTests } from '../../test/chain-hooks';
import { availableBackends } from '../../test/database';
import { testDatabaseForTests } from '../../test/database-hooks';
import { indexToHead } from '../../test/indexer/harness';
import { readIndexedThroughBlock } from '../db/checkpoint';
import type { DatabaseHandle } from '../db/client';
import { createStreamHub, type StreamHub, type StreamHubOptions } from './hub';
import { readIndexChanges } from './read-changes';
import type { Subscriber } from './subscriber';

/*
 * Rule: a stream slot is held from `subscribe` until the subscriber ends, and released exactly
 * once however it ends (docs/api.md, "Live stream", Limits). The real hub runs against a real
 * database holding a real indexed chain; the only thing injected is its `db` edge, to abort a
 * client at the moment the hub asks for the database or to make the database unreachable.
 */

const backends = await availableBackends();
const NO_METADATA: Hex = `0x${'00'.repeat(32)}`;
const MAX_CLIENTS = 2;
const MAX_QUEUED = 4;

let chain: TestChain;

simulatedChainForTests({ seed: 71, launches: 3, actions: 30 }, (started) => {
  chain = started.chain;
});

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of stream) text += decoder.decode(chunk);
  return text;
}

/** The first `count` chunks of a stream, as text, leaving it open. */
async function readFrames(stream: ReadableStream<Uint8Array>, count: number): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (let i = 0; i < count; i++) text += decoder.decode((await reader.read()).value);
  reader.releaseLock();
  return text;
}

const eventTypes = (text: string) => [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);

describe.each(backends)('stream slots (%s)', (backend) => {
  let handle: DatabaseHandle;
  // A bare block id, as earlier versions sent: resumed without a rollback check.
  let resumeFrom: ResumeToken;

  testDatabaseForTests(
    backend,
    async (opened) => {
      handle = opened.handle;
      await indexToHead(handle.db, chain);
      resumeFrom = { block: chain.deployment.startBlock, seq: undefined };
      // The replay from there is larger than a client's queue: such a resume gets `reset`.
      const replay = await readIndexChanges(
        handle.db,
        resumeFrom.block,
        await readIndexedThroughBlock(handle.db),
        5_000,
      );
      expect(replay.events.length).toBeGreaterThan(MAX_QUEUED + 1);
    },
    120_000,
  );

  /** The real hub over this database, with a hook on its `db` edge. */
  function hubOverDatabase(overrides: Partial<StreamHubOptions> = {}) {
    const edge: { onRead?: () => void; unreachable: boolean } = { unreachable: false };
    const hub = createStreamHub({
      db: async () => {
        edge.onRead?.();
        if (edge.unreachable) throw new Error('database unreachable');
        return handle.db;
      },
      pollMs: 50,
      heartbeatMs: 60_000,
      maxQueued: MAX_QUEUED,
      maxClients: MAX_CLIENTS,
      ...overrides,
    });
    return { hub, edge };
  }

  /** A client resuming from `resumeFrom` that leaves at the hub's next read of the database. */
  async function subscribeLeavingAtRead(hub: StreamHub, edge: { onRead?: () => void }) {
    const leaving = new AbortController();
    edge.onRead = () => leaving.abort();
    const left = await hub.subscribe({ token: undefined, resumeFrom, signal: leaving.signal });
    edge.onRead = undefined;
    return left;
  }

  /** Proves the hub is whole again: every slot free, the limit still holds, no poller left. */
  async function expectAllSlotsFree(hub: StreamHub) {
    expect(hub.slots).toBe(0);
    expect(hub.subscribers).toBe(0);
    expect(hub.polling).toBe(false);
    const clients: Subscriber[] = [];
    for (let i = 0; i < MAX_CLIENTS; i++) {
      const client = await hub.subscribe({ token: undefined, resumeFrom: undefined });
      expect(client, `client ${i + 1} of ${MAX_CLIENTS} gets a slot`).not.toBeNull();
      expect(client?.closed).toBe(false);
      if (client) clients.push(client);
    }
    expect(await hub.subscribe({ token: undefined, resumeFrom: undefined })).toBeNull();
    expect(hub.slots).toBe(MAX_CLIENTS);
    for (const client of clients) client.close();
    expect(hub.slots).toBe(0);
    expect(hub.polling).toBe(false);
  }

  it('resumes whose replay would overflow the queue get reset instead, each holding one slot until it closes', async () => {
    const { hub } = hubOverDatabase();
    // More such resumes than there are slots: each finds one free, and none overflows.
    for (let i = 0; i < MAX_CLIENTS * 3; i++) {
      const resumed = await hub.subscribe({ token: undefined, resumeFrom });
      expect(resumed, `resume ${i + 1} gets a slot`).not.toBeNull();
      if (!resumed) return;
      expect(resumed.closed).toBe(false);
      expect(hub.slots).toBe(1);
      expect(eventTypes(await readFrames(resumed.stream, resumed.queued))).toEqual(['reset']);
      resumed.close();
      expect(hub.slots).toBe(0);
    }
    await expectAllSlotsFree(hub);
  });

  it('a live client that stops reading overflows and gives its slot back; the others carry on', async () => {
    const { hub } = hubOverDatabase();
    const stalled = await hub.subscribe({ token: undefined, resumeFrom: undefined });
    const reading = await hub.subscribe({ token: undefined, resumeFrom: undefined });
    if (!stalled || !reading) throw new Error('no slot');
    let received = '';
    const decoder = new TextDecoder();
    const readingDone = (async () => {
      for await (const chunk of reading.stream) received += decoder.decode(chunk);
    })();

    // One block per advance (an event and its checkpoint): the reader drains each before the
    // next; the stalled client's queue (its first checkpoint, then two chunks an advance) fills.
    const creator = await fundedAddress(chain, 71);
    const trader = await fundedAddress(chain, 72);
    const advance = async (act: () => Promise<unknown>) => {
      await act();
      await indexToHead(handle.db, chain);
      const head = await readIndexedThroughBlock(handle.db);
      await expect
        .poll(() => received.includes(`"indexed_through_block":${head}`), { timeout: 10_000 })
        .toBe(true);
    };
    const launched = await chain.actions.launch({
      creator,
      name: 'Slot Stall',
      symbol: 'STAL',
      supply: 10n ** 27n,
      metadataHash: NO_METADATA,
    });
    await indexToHead(handle.db, chain);
    const buys = 3;
    for (let i = 0; i < buys; i++)
      await advance(() => chain.actions.buy({ trader, token: launched.token, value: 10n ** 17n }));
    const head = await readIndexedThroughBlock(handle.db);

    expect(stalled.closed).toBe(true);
    expect(hub.slots).toBe(1);
    expect(hub.subscribers).toBe(1);
    expect(reading.closed).toBe(false);
    expect(eventTypes(received).filter((t) => t === 'trade')).toHaveLength(buys);
    // The stalled client holds nothing but its farewell and receives nothing more.
    expect(stalled.queued).toBe(1);
    expect(stalled.send({ type: 'checkpoint', data: { indexed_through_block: head } })).toBe(false);
    expect(eventTypes(await readAll(stalled.stream))).toEqual(['overflow']);

    reading.close();
    await readingDone;
    await expectAllSlotsFree(hub);
  });

  it('a client gone before it subscribes, or while the hub awaits the database to start, frees its slot', async () => {
    const { hub, edge } = hubOverDatabase();
    const gone = new AbortController();
    gone.abort();
    const early = await hub.subscribe({ token: undefined, resumeFrom, signal: gone.signal });
    expect(early?.closed).toBe(true);
    expect(hub.slots).toBe(0);
    expect(hub.polling).toBe(false);

    // The first read of an idle hub is the poller's start: the client leaves right then.
    const left = await subscribeLeavingAtRead(hub, edge);
    expect(left?.closed).toBe(true);
    expect(left?.queued).toBe(0);
    expect(await readAll((left as Subscriber).stream)).toBe('');
    // No poller was left running for nobody.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expectAllSlotsFree(hub);
  });

  it('a client gone at any moment of its replay frees its slot, once, and receives nothing more', async () => {
    // A queue large enough that the replay itself fits: the client leaves of its own accord.
    const { hub, edge } = hubOverDatabase({ maxQueued: 10_000, pollMs: 60_000 });
    const holder = await hub.subscribe({ token: undefined, resumeFrom: undefined });
    if (!holder) throw new Error('no slot');

    // Leaves exactly when the replay asks for the database.
    const left = await subscribeLeavingAtRead(hub, edge);
    expect(left?.closed).toBe(true);
    expect(left?.queued).toBe(0);
    expect(hub.slots).toBe(1);

    // Leaves after 0..20 ms: during the replay's query, between it and the join, or once live.
    for (const delay of [0, 1, 2, 3, 5, 8, 13, 20]) {
      const client = new AbortController();
      setTimeout(() => client.abort(), delay);
      const subscribing = hub.subscribe({ token: undefined, resumeFrom, signal: client.signal });
      expect(hub.slots).toBe(2);
      const subscriber = await subscribing;
      await new Promise((resolve) => setTimeout(resolve, delay + 5));
      expect(subscriber?.closed, `aborted after ${delay} ms`).toBe(true);
      expect(subscriber?.queued).toBe(0);
      expect(subscriber?.send({ type: 'checkpoint', data: { indexed_through_block: 1 } })).toBe(false);
      expect(hub.slots, `aborted after ${delay} ms`).toBe(1);
      expect(hub.subscribers).toBe(1);
    }

    expect(holder.closed).toBe(false);
    holder.close();
    await expectAllSlotsFree(hub);
  });

  it('a reader that cancels, and a subscriber closed twice, cancelled and aborted, each free one slot', async () => {
    const { hub } = hubOverDatabase({ maxQueued: 10_000 });
    const cancelled = await hub.subscribe({ token: undefined, resumeFrom });
    const leaving = new AbortController();
    const closedOften = await hub.subscribe({
      token: undefined,
      resumeFrom: undefined,
      signal: leaving.signal,
    });
    if (!cancelled || !closedOften) throw new Error('no slot');
    expect(hub.slots).toBe(2);
    expect(cancelled.queued).toBeGreaterThan(MAX_QUEUED);

    await cancelled.stream.cancel();
    expect(cancelled.closed).toBe(true);
    expect(cancelled.queued).toBe(0);
    expect(hub.slots).toBe(1);

    closedOften.close();
    closedOften.close();
    await closedOften.stream.cancel();
    leaving.abort();
    expect(hub.slots).toBe(0);
    await expectAllSlotsFree(hub);
  });

  it('a database error during the start or the replay rejects the subscribe and frees its slot', async () => {
    const { hub, edge } = hubOverDatabase();
    // While idle: the poller cannot start.
    edge.unreachable = true;
    await expect(hub.subscribe({ token: undefined, resumeFrom: undefined })).rejects.toThrow(
      'database unreachable',
    );
    expect(hub.slots).toBe(0);
    expect(hub.polling).toBe(false);
    edge.unreachable = false;

    // While another client listens: the replay's read fails.
    const holder = await hub.subscribe({ token: undefined, resumeFrom: undefined });
    if (!holder) throw new Error('no slot');
    edge.unreachable = true;
    for (let i = 0; i < MAX_CLIENTS * 2; i++)
      await expect(hub.subscribe({ token: undefined, resumeFrom })).rejects.toThrow('database unreachable');
    edge.unreachable = false;
    expect(hub.slots).toBe(1);
    holder.close();
    await expectAllSlotsFree(hub);
  });
});
