import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedAddress, startSimulatedChain, type TestChain } from '../../test/chain';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import { noDns, waitFor, webhookHarness } from '../../test/webhook-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/webhook-receiver';
import { readIndexedThroughBlock } from '../db/checkpoint';
import { type DatabaseHandle, selectRows } from '../db/client';
import type { Resolver } from '../metadata/ssrf';
import { listenForOutbox } from './start';

/*
 * Rules (docs/api.md, "Webhooks"): every event the index holds reaches each matching target,
 * signed, in chain order, at least once with the same id and bytes; failures are retried with
 * backoff; a reorg retracts what was sent and drops what was not; the SSRF policy refuses a
 * target at add time and at every delivery; a dead target slows neither indexing nor other
 * targets. Real anvil, real indexer, real loopback HTTP receivers, both backends.
 */

const backends = await availableBackends();

describe.each(backends)('webhooks (%s)', (backend) => {
  let chain: TestChain;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let receiver: WebhookReceiver;
  let trader: Address;
  const harness = webhookHarness(() => ({ db: handle.db, chain }));
  const { worker, startWorker, command, add, statusOf, canonical, index, reorg } = harness;
  const buy = (blocks: number) => harness.buy(trader, blocks);

  beforeAll(async () => {
    ({ chain } = await startSimulatedChain({ seed: 29, launches: 3, actions: 12 }));
    database = await createTestDatabase(backend);
    handle = await database.open();
    receiver = await startWebhookReceiver();
    trader = await fundedAddress(chain, 29);
  }, 180_000);

  afterAll(async () => {
    await harness.stopAll();
    await receiver?.close();
    await handle?.close();
    await database?.drop();
    await chain?.stop();
  });

  let mainId: string | undefined;

  it('delivers every indexed event once per target, signed, in chain order, in the stream shapes', async () => {
    const added = await add(receiver.url);
    expect(added.code, added.errors.join('\n')).toBe(0);
    expect(added.secret).toMatch(/^whsec_/);
    mainId = added.id;
    receiver.secret = added.secret;
    await index();
    const stop = startWorker();
    await waitFor('the outbox to drain', async () => (await statusOf(mainId)).pending === 0);
    await stop();
    const expected = await canonical();
    expect(expected.size).toBeGreaterThan(5);
    expect(receiver.invalid).toBe(0);
    expect(receiver.applied.map((event) => event.id)).toEqual([...expected.keys()]);
    expect(receiver.applied.map(({ type, data }) => ({ type, data }))).toEqual([...expected.values()]);
    expect((await statusOf(mainId)).delivered).toBe(expected.size);
  }, 120_000);

  it('rotate-secret: the old and the new secret both sign during the overlap, then only the new one', async () => {
    const oldSecret = receiver.secret as string;
    const { code, out } = await command(['rotate-secret', mainId ?? '']);
    expect(code, out.join('\n')).toBe(0);
    const newSecret = out.find((line) => line.startsWith('secret'))?.split(/\s+/)[1] as string;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    /** Indexes one more buy and delivers until the outbox is empty or `attempts` fail. */
    const deliverOne = async (until: () => Promise<boolean>) => {
      await buy(1);
      await index();
      const stop = startWorker({ timeoutMs: 1_000 });
      await waitFor('the delivery', until);
      await stop();
    };
    // A receiver still on the old secret accepts, and so does one on the new.
    for (const secret of [oldSecret, newSecret]) {
      receiver.secret = secret;
      const before = receiver.applied.length;
      await deliverOne(async () => (await statusOf(mainId)).pending === 0);
      expect(receiver.invalid).toBe(0);
      expect(receiver.applied.length).toBeGreaterThan(before);
    }
    // Past the overlap only the new secret signs: the old receiver refuses, nothing is lost.
    await handle.db.execute(
      sql`update webhook_targets set previous_secret_until = now() - interval '1 second' where id = ${mainId ?? ''}`,
    );
    receiver.secret = oldSecret;
    await deliverOne(async () => receiver.invalid > 0);
    expect((await statusOf(mainId)).pending).toBeGreaterThan(0);
    receiver.secret = newSecret;
    const refused = receiver.invalid;
    const stop = startWorker({ timeoutMs: 1_000 });
    await handle.db.execute(
      sql`update webhook_targets set next_attempt_at = now() where id = ${mainId ?? ''}`,
    );
    await waitFor('the queue to drain on the new secret', async () => (await statusOf(mainId)).pending === 0);
    await stop();
    expect(receiver.invalid).toBe(refused);
    const expected = await canonical();
    expect(receiver.applied.map((event) => event.id)).toEqual([...expected.keys()]);
    receiver.clearInvalid();
  }, 120_000);

  it('retries a target that is down, answers 500 or hangs, keeps order, and reports it failing after the threshold', async () => {
    receiver.secret = receiver.secret as string;
    const before = receiver.applied.length;
    await receiver.setDown(true);
    await buy(2);
    await index();
    let stop = startWorker({ timeoutMs: 500 });
    await waitFor('two failed attempts', async () => (await statusOf(mainId)).attempts >= 2);
    await stop();
    const down = await statusOf(mainId);
    expect(down.failingSince).not.toBeNull();
    expect(down.lastError).toMatch(/ECONNREFUSED|connect/i);
    // Past the threshold it is reported failing; nothing is dropped.
    await handle.db.execute(
      sql`update webhook_targets set failing_since = now() - interval '25 hours' where id = ${mainId ?? ''}`,
    );
    const failing = await statusOf(mainId);
    expect(failing.failing).toBe(true);
    expect(failing.pending).toBeGreaterThan(0);

    await receiver.setDown(false);
    const script: ('fail' | 'hang')[] = ['fail', 'fail', 'hang'];
    receiver.answer = () => script.shift() ?? 'ok';
    await buy(1);
    await index();
    stop = startWorker({ timeoutMs: 500 });
    await waitFor('the outbox to drain', async () => (await statusOf(mainId)).pending === 0);
    await stop();
    receiver.answer = () => 'ok';
    const recovered = await statusOf(mainId);
    expect(recovered.failingSince).toBeNull();
    expect(recovered.lastError).toBeNull();
    const answers = receiver.requests.map((r) => r.answer);
    expect(answers.filter((a) => a === 'fail').length).toBeGreaterThanOrEqual(2);
    const late = receiver.applied.slice(before);
    // The hung event arrived twice, byte for byte; deduplicated, the order is the chain's.
    expect(late.length).toBe(new Set(late.map((e) => e.id)).size + 1);
    const unique = [...new Set(late.map((e) => e.id))];
    const order = [...(await canonical()).keys()];
    expect(unique).toEqual(order.slice(order.length - unique.length));
    expect([...receiver.held().keys()]).toEqual(order);
    expect(receiver.invalid).toBe(0);
  }, 120_000);

  it('retracts delivered events a reorg removed, and drops the undelivered ones', async () => {
    let stop = startWorker();
    await buy(2);
    await index();
    await waitFor('delivery', async () => (await statusOf(mainId)).pending === 0);
    const retractionsBefore = receiver.applied.filter((e) => e.type === 'retraction').length;
    await reorg(2);
    await index();
    await waitFor('delivery after the reorg', async () => (await statusOf(mainId)).pending === 0);
    await stop();
    const retracted = receiver.applied.filter((e) => e.type === 'retraction').slice(retractionsBefore);
    expect(retracted.length).toBeGreaterThanOrEqual(2);
    const expected = await canonical();
    expect(new Set(receiver.held().keys())).toEqual(new Set(expected.keys()));
    for (const [id, event] of receiver.held()) expect(event).toEqual(expected.get(id));

    // Not sent yet when the reorg comes: dropped, never sent, nothing to retract.
    const sentBefore = receiver.requests.length;
    await buy(2);
    await index();
    const queued = await selectRows<{ event_id: string }>(
      handle.db,
      sql`select event_id from webhook_outbox where target_id = ${mainId ?? ''} and delivered_at is null`,
    );
    expect(queued.length).toBeGreaterThan(0);
    await reorg(2);
    await index();
    stop = startWorker();
    await waitFor('delivery', async () => (await statusOf(mainId)).pending === 0);
    await stop();
    const sent = receiver.requests.slice(sentBefore).map((r) => r.id);
    const now = await canonical();
    const gone = queued.map((row) => row.event_id).filter((id) => !now.has(id));
    expect(gone.length).toBeGreaterThan(0);
    for (const id of gone) expect(sent).not.toContain(id);
    expect(sent.some((id) => id.startsWith('retraction:'))).toBe(false);
    expect(new Set(receiver.held().keys())).toEqual(new Set(now.keys()));
  }, 120_000);

  it('replays a target from a block: every event since it, in chain order, through a reorg in the middle', async () => {
    const late = await startWebhookReceiver();
    try {
      const head = await readIndexedThroughBlock(handle.db);
      expect((await command(['replay', mainId ?? '', '--from-block', String(head + 1)])).out[0]).toMatch(
        `block ${head + 1} is beyond the indexed head (${head})`,
      );
      expect((await command(['replay', 'wh_nope', '--from-block', '1'])).code).toBe(1);
      expect((await command(['replay', mainId ?? ''])).code).toBe(2);
      expect((await command(['replay', mainId ?? '', '--from-block', '-1'])).code).toBe(2);

      // A new integration asks for the whole history.
      const added = await add(late.url, { args: ['--from-block', String(chain.deployment.startBlock)] });
      expect(added.code, added.errors.join('\n')).toBe(0);
      late.secret = added.secret;
      const history = await canonical();
      expect(history.size).toBeGreaterThan(10);
      // All but the last event arrive, then the receiver refuses while a reorg replaces the blocks
      // from the last delivered one's: what it got of them is retracted, the rest never sent.
      const blockOf = (id: string, events = history) =>
        Number((events.get(id)?.data as { block_number?: number } | undefined)?.block_number);
      const cut = history.size - 1;
      const lastSent = [...history.keys()][cut - 1] ?? '';
      late.answer = () => (late.applied.length < cut ? 'ok' : 'fail');
      let stop = startWorker({ timeoutMs: 500 });
      await waitFor('all but the last event', async () => late.applied.length >= cut);
      await stop();
      const chainHead = Number(await chain.client.getBlockNumber());
      await reorg(chainHead - blockOf(lastSent) + 1);
      await index();
      await buy(1);
      await index();
      late.answer = () => 'ok';
      await handle.db.execute(
        sql`update webhook_targets set next_attempt_at = now() where id = ${added.id ?? ''}`,
      );
      stop = startWorker({ timeoutMs: 500 });
      await waitFor('the replay and the live events', async () => (await statusOf(added.id)).pending === 0);
      await stop();
      const now = await canonical();
      expect(late.invalid).toBe(0);
      expect(new Set(late.held().keys())).toEqual(new Set(now.keys()));
      for (const [id, event] of late.held()) expect(event).toEqual(now.get(id));
      // In chain order: what it first received of each event still on chain is the chain's order.
      const received = [...new Set(late.applied.map((event) => event.id))].filter((id) => now.has(id));
      expect(received).toEqual([...now.keys()].filter((id) => received.includes(id)));
      expect(now.has(lastSent)).toBe(false);
      expect(late.applied.some((event) => event.type === 'retraction' && event.data.id === lastSent)).toBe(
        true,
      );

      // A replay from a later block again: the events since it, nothing earlier, no pending double.
      const from = blockOf([...now.keys()][Math.floor(now.size / 2)] ?? '', now);
      const before = late.applied.length;
      const again = await command(['replay', added.id ?? '', '--from-block', String(from)]);
      expect(again.code, again.out.join('\n')).toBe(0);
      stop = startWorker();
      await waitFor('the second replay', async () => (await statusOf(added.id)).pending === 0);
      await stop();
      const replayed = late.applied.slice(before);
      const since = [...now.keys()].filter((id) => blockOf(id, now) >= from);
      expect(replayed.map((event) => event.id)).toEqual(since);
    } finally {
      await late.close();
    }
  }, 180_000);

  it("docs/api.md's receiver without dependencies accepts real deliveries, and refuses them under another secret", async () => {
    const docs = readFileSync(path.join(import.meta.dirname, '../../docs/api.md'), 'utf8');
    const code =
      /A receiver in a few lines of Node without dependencies[\s\S]*?```js\n([\s\S]*?)```/.exec(docs)?.[1] ??
      '';
    expect(code).toContain('.listen(8080)');
    for (const secretIsRight of [true, false]) {
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          resolve((probe.address() as AddressInfo).port);
          probe.close();
        });
      });
      // The accepting one reads batches: the code handles both shapes.
      const added = await add(`http://127.0.0.1:${port}/hooks`, {
        args: [
          '--from-block',
          String(chain.deployment.startBlock),
          ...(secretIsRight ? ['--batch', '7'] : []),
        ],
      });
      expect(added.code, added.errors.join('\n')).toBe(0);
      const receiver = spawn(
        process.execPath,
        ['--input-type=module', '-e', code.replace('.listen(8080)', `.listen(${port}, '127.0.0.1')`)],
        {
          env: {
            ...process.env,
            LAUNCHDEX_WEBHOOK_SECRET: secretIsRight
              ? added.secret
              : 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
          },
          stdio: 'ignore',
        },
      );
      try {
        await waitFor('the docs receiver to listen', async () => {
          const answer = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch(
            () => undefined,
          );
          return answer?.status === 401;
        });
        const queued = (await statusOf(added.id)).pending;
        expect(queued).toBeGreaterThan(10);
        const stop = startWorker({ timeoutMs: 1_000 });
        if (secretIsRight) {
          await waitFor('every event accepted', async () => (await statusOf(added.id)).pending === 0);
          expect((await statusOf(added.id)).delivered).toBe(queued);
        } else {
          await waitFor('a refusal', async () => (await statusOf(added.id)).attempts >= 1);
          const refused = await statusOf(added.id);
          expect(refused.lastError).toBe('HTTP 401');
          expect(refused.delivered).toBe(0);
        }
        await stop();
      } finally {
        receiver.kill();
        expect((await command(['remove', added.id ?? ''])).code).toBe(0);
      }
    }
  }, 120_000);

  // PostgreSQL only: PGlite has one session, nothing to listen to (the poll serves, start.ts).
  if (backend === 'postgres')
    it('wakes on the commit that queued events, not at the next poll (LISTEN/NOTIFY)', async () => {
      // A poll that never comes in the test's time: only the NOTIFY can wake it.
      const listening = worker({ pollMs: 3_600_000 });
      const stopListening = await listenForOutbox(database.config, () => listening.wake());
      const stop = new AbortController();
      const running = listening.run(stop.signal);
      try {
        const before = receiver.applied.length;
        await buy(1);
        await index();
        await waitFor('a woken delivery', async () => (await statusOf(mainId)).pending === 0, 10_000);
        expect(receiver.applied.length).toBeGreaterThan(before);
      } finally {
        stop.abort();
        await running;
        await stopListening();
      }
    }, 60_000);

  it('refuses a target the SSRF policy refuses, at add time and at every delivery', async () => {
    const strict = { allowLoopback: false };
    for (const url of [
      'http://127.0.0.1:9/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://[::1]/x',
      'https://user:pw@hooks.example/x',
      'http://hooks.example/x',
      'https://localhost/x',
    ])
      expect((await add(url, strict)).code, url).toBe(1);
    const privateName: Resolver = async () => [{ address: '10.0.0.8', family: 4 }];
    const mixed: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: 'fd00::1', family: 6 },
    ];
    expect(
      (await add('https://hooks.example/x', { ...strict, resolver: privateName })).errors.join(),
    ).toMatch(/non-public/);
    expect((await add('https://hooks.example/x', { ...strict, resolver: mixed })).code).toBe(1);
    expect((await add('https://hooks.example/x', { ...strict, resolver: noDns })).code).toBe(1);
    const publicName: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const added = await add('https://hooks.example/x', { ...strict, resolver: publicName });
    expect(added.code).toBe(0);
    // The name now resolves to a private address: the delivery is refused before any connection.
    let connected = 0;
    const stop = startWorker({
      resolver: privateName,
      policy: strict,
      route: () => {
        connected++;
        return { host: '127.0.0.1', port: 9 };
      },
    });
    await buy(1);
    await index();
    await waitFor('a refused attempt', async () => (await statusOf(added.id)).attempts >= 1);
    await stop();
    expect((await statusOf(added.id)).lastError).toMatch(/refused: .*non-public/);
    expect(connected).toBe(0);
    expect((await command(['remove', added.id as string], strict)).out).toEqual([`removed ${added.id}`]);
  }, 120_000);

  it('a dead target slows neither indexing nor delivery to other targets', async () => {
    const dead = await startWebhookReceiver();
    dead.answer = () => 'hang';
    const added = await add(dead.url);
    dead.secret = added.secret;
    const stop = startWorker({ timeoutMs: 60_000 });
    try {
      await buy(1);
      await index();
      await waitFor('a hanging POST', () => dead.requests.length > 0);
      await buy(5);
      const started = performance.now();
      await index();
      const seconds = (performance.now() - started) / 1000;
      expect(seconds).toBeLessThan(10);
      await waitFor('the live target to drain', async () => (await statusOf(mainId)).pending === 0);
      expect(dead.requests.length).toBe(1);
      expect((await statusOf(added.id)).pending).toBeGreaterThanOrEqual(6);
    } finally {
      await stop();
      await dead.close();
    }
  }, 120_000);
});
