import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends, createTestDatabase, type TestDatabase } from '../../test/database';
import type { DatabaseHandle } from '../db/client';
import { readWebhookGauges } from './gauges';
import type { RetryPolicy } from './retry';
import { addWebhookTarget } from './targets';

/*
 * What /api/metrics says of webhook targets (ops/prometheus/alerts.yml alerts on it): each target
 * in the state `npm run webhooks -- status` gives it, and how far its oldest undelivered event is
 * behind the index head. The outbox rows and the failure clocks are written as the indexer and the
 * worker write them (server/webhooks/outbox.ts, worker.ts), on both backends.
 */

const backends = await availableBackends();
const retry: RetryPolicy = { baseMs: 1_000, maxMs: 3_600_000, failingAfterMs: 24 * 3_600_000 };

describe.each(backends)('webhook gauges (%s)', (backend) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    handle = await database.open();
  });

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  /** Rows one at a time: `seq` is the queue's order. */
  const queue = async (target: string, blocks: (number | null)[], delivered = false) => {
    for (const [i, block] of blocks.entries())
      await handle.db.execute(sql`insert into webhook_outbox (target_id, event_id, kind, block_number, body, delivered_at)
        values (${target}, ${`evt_${target}_${delivered}_${i}`}, 'trade', ${block}, '{}', ${delivered ? sql`now()` : null})`);
  };

  it('counts no targets as zero in every state', async () => {
    expect(await readWebhookGauges(handle.db, retry)).toEqual({
      targets: { ok: 0, retrying: 0, failing: 0 },
      lagBlocks: {},
    });
  });

  it('states each target as status does and measures its queue head against the index head', async () => {
    const target = () =>
      addWebhookTarget(handle.db, { url: 'https://hooks.example/x', tokenAddress: null, events: ['trade'] });
    const [healthy, idle, retrying, failing] = [
      await target(),
      await target(),
      await target(),
      await target(),
    ];
    await handle.db.execute(sql`insert into indexer_checkpoint (id, chain_id, indexed_through_block, block_hash, block_timestamp)
      values ('main', 31337, 120, ${`0x${'ab'.repeat(32)}`}, 1700000000)`);
    // A healthy target keeps up: its head is the newest block; delivered rows do not count.
    await queue(healthy.id, [100, 101], true);
    await queue(healthy.id, [118, 120]);
    await queue(idle.id, [90], true);
    // A retraction (no block) at the head is passed over for the oldest event with a block.
    await queue(retrying.id, [null, 110, 115]);
    await queue(failing.id, [20, 21]);
    await handle.db.execute(sql`update webhook_targets set failing_since = now() - interval '1 hour', attempts = 3
      where id = ${retrying.id}`);
    await handle.db.execute(sql`update webhook_targets set failing_since = now() - interval '25 hours', attempts = 40
      where id = ${failing.id}`);

    expect(await readWebhookGauges(handle.db, retry)).toEqual({
      targets: { ok: 2, retrying: 1, failing: 1 },
      lagBlocks: { [healthy.id]: 2, [idle.id]: 0, [retrying.id]: 10, [failing.id]: 100 },
    });
    // The threshold is the policy's (WEBHOOK_FAILING_AFTER_HOURS), not a constant.
    const sooner = await readWebhookGauges(handle.db, { ...retry, failingAfterMs: 30 * 60_000 });
    expect(sooner.targets).toEqual({ ok: 2, retrying: 0, failing: 2 });
  });
});
