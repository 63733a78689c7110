import { sql } from 'drizzle-orm';
import type { Address } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fundedAddress, startSimulatedChain, type TestChain } from '../../test/chain';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import { selfSignedCertificate } from '../../test/tls';
import { waitFor, webhookHarness } from '../../test/webhook-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/webhook-receiver';
import type { DatabaseHandle } from '../db/client';
import type { Resolver } from '../metadata/ssrf';

/*
 * Rules (docs/api.md, "Webhooks"; docs/decisions.md, "Webhook throughput"): a target's POSTs go
 * one at a time, on one kept-alive connection, the next only after the previous was answered
 * 2xx; a batching target gets consecutive events per POST, all delivered or none; a failed or
 * unanswered POST comes again whole before anything after it; a reorg retracts what a batch
 * carried; and a kept connection never outlives the DNS answer it was vetted for.
 */

const backends = await availableBackends();
/** Public addresses the tests resolve `hooks.test` to; routed to the loopback receiver, never dialed. */
const PUBLIC_A = '93.184.216.34';
const PUBLIC_B = '93.184.216.35';

describe.each(backends)('webhook connections and batches (%s)', (backend) => {
  let chain: TestChain;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let trader: Address;
  const receivers: WebhookReceiver[] = [];
  const harness = webhookHarness(() => ({ db: handle.db, chain }));
  const { startWorker, command, add, statusOf, canonical, index, reorg } = harness;
  const buy = (blocks: number) => harness.buy(trader, blocks);

  /** A receiver registered as a target with `args`; it verifies under the target's secret. */
  async function target(args: string[] = [], options: Parameters<typeof startWebhookReceiver>[0] = {}) {
    const receiver = await startWebhookReceiver(options);
    receivers.push(receiver);
    const added = await add(receiver.url, { args });
    expect(added.code, added.errors.join('\n')).toBe(0);
    receiver.secret = added.secret;
    return { receiver, id: added.id };
  }
  const fromStart = () => ['--from-block', String(chain.deployment.startBlock)];
  const drained = (id: string | undefined) => async () => (await statusOf(id)).pending === 0;

  beforeAll(async () => {
    ({ chain } = await startSimulatedChain({ seed: 31, launches: 3, actions: 16 }));
    database = await createTestDatabase(backend);
    handle = await database.open();
    trader = await fundedAddress(chain, 31);
    await index();
  }, 180_000);

  // A failed test's workers stop with it, not in the next test's counts.
  afterEach(() => harness.stopAll());

  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
    await handle?.close();
    await database?.drop();
    await chain?.stop();
  });

  it('sends one event per POST on one kept-alive connection, across drains, in chain order; `batch` switches the shape', async () => {
    const { receiver, id } = await target(fromStart());
    const stop = startWorker();
    await waitFor('the history', drained(id));
    await buy(2);
    await index();
    await waitFor('the new blocks', drained(id));
    const expected = [...(await canonical()).keys()];
    expect(receiver.applied.map((event) => event.id)).toEqual(expected);
    expect(receiver.requests.every((r) => r.events.length === 1 && r.id === r.events[0])).toBe(true);
    expect(receiver.connections).toBe(1);
    expect(receiver.maxInFlight).toBe(1);

    // From the next POST on, batches of up to 3.
    expect((await command(['batch', id ?? '', '3'])).code).toBe(0);
    const posts = receiver.requests.length;
    await buy(4);
    await index();
    await waitFor('the batched blocks', drained(id));
    await stop();
    const batched = receiver.requests.slice(posts);
    expect(batched.length).toBeGreaterThan(0);
    expect(batched.every((r) => r.id.startsWith('batch:') && r.events.length <= 3)).toBe(true);
    expect(receiver.applied.map((event) => event.id)).toEqual([...(await canonical()).keys()]);
    expect(receiver.connections).toBe(1);
    expect(receiver.invalid).toBe(0);
  }, 120_000);

  it('refuses a batch size outside 1..500 and a missing target, and lists the batching', async () => {
    const { id } = await target();
    for (const args of [
      ['add', 'http://127.0.0.1:9/x', '--batch', '0'],
      ['add', 'http://127.0.0.1:9/x', '--batch', '501'],
      ['add', 'http://127.0.0.1:9/x', '--batch', 'ten'],
      ['batch', id ?? '', '1.5'],
      ['batch', id ?? '', '-1'],
      ['batch', id ?? ''],
      ['batch'],
    ])
      expect((await command(args)).code, args.join(' ')).toBe(2);
    expect((await command(['batch', 'wh_nope', '5'])).code).toBe(1);
    expect((await command(['batch', id ?? '', '500'])).code).toBe(0);
    const listed = (await command(['list'])).out.find((line) => line.startsWith(id ?? '-'));
    expect(listed).toContain('batches of 500');
    expect((await command(['batch', id ?? '', '1'])).code).toBe(0);
    expect((await command(['list'])).out.find((line) => line.startsWith(id ?? '-'))).not.toContain('batches');
  }, 60_000);

  it('a batching target gets consecutive events per POST, one POST at a time, on one connection', async () => {
    const { receiver, id } = await target(['--batch', '4', ...fromStart()]);
    const queued = (await statusOf(id)).pending;
    const stop = startWorker();
    await waitFor('the history in batches', drained(id));
    await stop();
    const expected = [...(await canonical()).keys()];
    expect(queued).toBe(expected.length);
    expect(receiver.applied.map((event) => event.id)).toEqual(expected);
    // Everything was queued before the first POST: every batch is full but the last.
    expect(receiver.requests.map((r) => r.events.length)).toEqual(
      expected
        .map((_, i) => i)
        .filter((i) => i % 4 === 0)
        .map((i) => Math.min(4, expected.length - i)),
    );
    expect(receiver.connections).toBe(1);
    expect(receiver.maxInFlight).toBe(1);
    expect((await statusOf(id)).delivered).toBe(expected.length);
  }, 120_000);

  it('a batch that fails or is never answered comes again whole, with its id and bytes, before anything after it', async () => {
    const { receiver, id } = await target(['--batch', '3', ...fromStart()]);
    const script: ('ok' | 'fail' | 'hang')[] = ['ok', 'fail', 'fail', 'ok', 'hang'];
    receiver.answer = () => script.shift() ?? 'ok';
    const stop = startWorker({ timeoutMs: 500 });
    await waitFor('the history through failures', drained(id));
    await stop();
    const posts = receiver.requests;
    expect(posts.slice(0, 5).map((r) => r.answer)).toEqual(['ok', 'fail', 'fail', 'ok', 'hang']);
    // After a POST that failed or hung, the next one carries exactly its events (nothing was
    // queued meanwhile), under its id: nothing behind it was sent or counted as delivered.
    for (const [i, post] of posts.entries())
      if (post.answer !== 'ok') expect(posts[i + 1]).toMatchObject({ id: post.id, events: post.events });
    const expected = [...(await canonical()).keys()];
    // The hung batch was applied twice (byte for byte: held() checks); once deduplicated, chain order.
    expect([...new Set(receiver.applied.map((event) => event.id))]).toEqual(expected);
    expect([...receiver.held().keys()]).toEqual(expected);
    expect(receiver.maxInFlight).toBe(1);
    const status = await statusOf(id);
    expect(status.delivered).toBe(expected.length);
    expect(status.attempts).toBe(0);
    expect(status.lastError).toBeNull();
  }, 120_000);

  it('retracts what a batch carried when a reorg removes it, even while that batch is unanswered, and drops the unsent', async () => {
    const { receiver, id } = await target(['--batch', '2']);
    let reorged = false;
    // Applies every POST and answers none until the reorg is indexed: a batch racing the rollback.
    receiver.answer = () => (reorged ? 'ok' : 'hang');
    const before = new Set((await canonical()).keys());
    await buy(3);
    await index();
    const bought = [...(await canonical()).keys()].filter((eventId) => !before.has(eventId));
    expect(bought).toHaveLength(3);
    const stop = startWorker({ timeoutMs: 500 });
    await waitFor('a hung batch', () => receiver.requests.length > 0);
    await reorg(3);
    await index();
    reorged = true;
    await waitFor('the retractions', drained(id));
    await stop();
    const now = await canonical();
    expect(bought.some((eventId) => now.has(eventId))).toBe(false);
    const ids = receiver.applied.map((event) => event.id);
    const retractedAt = (eventId: string) =>
      receiver.applied.findIndex((e) => e.type === 'retraction' && e.data.id === eventId);
    expect(receiver.requests[0]).toMatchObject({ events: bought.slice(0, 2), answer: 'hang' });
    // The hung batch's two were sent: each is retracted after its last delivery. The third was
    // behind it, never sent: dropped, nothing to retract.
    const [first, second, third] = bought as [string, string, string];
    for (const eventId of [first, second])
      expect(retractedAt(eventId)).toBeGreaterThan(ids.lastIndexOf(eventId));
    expect(ids).not.toContain(third);
    expect(retractedAt(third)).toBe(-1);
    // What it holds is the replacement blocks' events, as the index has them.
    const held = receiver.held();
    expect(new Set(held.keys())).toEqual(new Set([...now.keys()].filter((eventId) => !before.has(eventId))));
    for (const [eventId, event] of held) expect(event).toEqual(now.get(eventId));
    expect(receiver.invalid).toBe(0);
  }, 120_000);

  it('re-vets the name at every POST: the kept connection serves only its vetted address, and a private answer closes it unused', async () => {
    const tls = selfSignedCertificate({ dns: ['hooks.test'] });
    const receiver = await startWebhookReceiver({ tls });
    receivers.push(receiver);
    let answers = [PUBLIC_A];
    const resolver: Resolver = async () => answers.map((address) => ({ address, family: 4 }) as const);
    const strict = { allowLoopback: false };
    const added = await add('https://hooks.test/x', { ...strict, resolver });
    expect(added.code, added.errors.join('\n')).toBe(0);
    receiver.secret = added.secret;
    const known = new Set((await canonical()).keys());
    const dialed: string[] = [];
    const stop = startWorker({
      resolver,
      policy: strict,
      ca: tls.cert,
      route: (pinned, port) => {
        if (![PUBLIC_A, PUBLIC_B].includes(pinned.address) || port !== 443)
          throw new Error(`test attempted to connect to ${pinned.address}:${port}`);
        dialed.push(pinned.address);
        return { host: '127.0.0.1', port: Number(new URL(receiver.url).port) };
      },
    });
    const deliverBlocks = async (blocks: number) => {
      await buy(blocks);
      await index();
      await waitFor('delivery', drained(added.id));
    };
    await deliverBlocks(2);
    expect(receiver.connections).toBe(1);
    // Rotating answers that still include the vetted address: the kept connection serves.
    answers = [PUBLIC_B, PUBLIC_A];
    await deliverBlocks(2);
    expect(receiver.connections).toBe(1);
    expect(new Set(dialed)).toEqual(new Set([PUBLIC_A]));
    // The name moved: a new connection to the new address, the old one closed.
    answers = [PUBLIC_B];
    await deliverBlocks(1);
    expect(receiver.connections).toBe(2);
    await waitFor('the old connection to close', () => receiver.openConnections === 1);
    // A private answer beside it: refused before any byte, and the kept connection closed unused.
    answers = [PUBLIC_B, '10.0.0.8'];
    const posts = receiver.requests.length;
    await buy(1);
    await index();
    await waitFor('a refused attempt', async () => (await statusOf(added.id)).attempts >= 1);
    expect((await statusOf(added.id)).lastError).toMatch(/refused: .*non-public/);
    await waitFor('the kept connection to close', () => receiver.openConnections === 0);
    expect(receiver.requests.length).toBe(posts);
    expect(receiver.connections).toBe(2);
    // Public again: delivered in order on a new connection.
    answers = [PUBLIC_A];
    await handle.db.execute(
      sql`update webhook_targets set next_attempt_at = now() where id = ${added.id ?? ''}`,
    );
    await waitFor('delivery after the refusal', drained(added.id));
    await stop();
    expect(receiver.connections).toBe(3);
    const expected = [...(await canonical()).keys()].filter((eventId) => !known.has(eventId));
    expect(receiver.applied.map((event) => event.id)).toEqual(expected);
    expect(receiver.invalid).toBe(0);
  }, 120_000);
});
