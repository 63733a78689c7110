import { sql } from 'drizzle-orm';
import { indexedThroughBlockSql } from '../db/checkpoint';
import { type Database, selectRows } from '../db/client';
import { isFailing, type RetryPolicy } from './retry';

/** Delivery state of every target, as /api/metrics states it. */
export interface WebhookGauges {
  /** Targets per state, as `npm run webhooks -- status` names them (ok, retrying, FAILING). */
  targets: { ok: number; retrying: number; failing: number };
  /** Per target: blocks between the index head and its oldest undelivered event (0: nothing waits). */
  lagBlocks: Record<string, number>;
}

/**
 * Reads the targets' delivery state for a scrape: one statement, an index probe per target (the
 * head of its queue) and no count of its queue, which a target down for a day during a backfill
 * makes millions of rows long. A retraction (no block) at the head is passed over: the lag is
 * that of the oldest event with a block.
 */
export async function readWebhookGauges(db: Database, policy: RetryPolicy): Promise<WebhookGauges> {
  const rows = await selectRows<{
    id: string;
    failing_since: Date | string | null;
    now: Date | string;
    indexed: string | number;
    head_block: string | number | null;
  }>(
    db,
    sql`select w.id, w.failing_since, now() as now, ${indexedThroughBlockSql} as indexed,
               (select o.block_number from webhook_outbox o
                 where o.target_id = w.id and o.delivered_at is null and o.block_number is not null
                 order by o.seq limit 1) as head_block
          from webhook_targets w`,
  );
  const gauges: WebhookGauges = { targets: { ok: 0, retrying: 0, failing: 0 }, lagBlocks: {} };
  for (const row of rows) {
    const failingSince = row.failing_since === null ? null : new Date(row.failing_since);
    const state = isFailing(policy, failingSince, new Date(row.now))
      ? 'failing'
      : failingSince
        ? 'retrying'
        : 'ok';
    gauges.targets[state]++;
    gauges.lagBlocks[row.id] =
      row.head_block === null ? 0 : Math.max(0, Number(row.indexed) - Number(row.head_block));
  }
  return gauges;
}
