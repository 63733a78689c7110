import { sql } from 'drizzle-orm';
import { withCheckpointLock } from '../db/checkpoint';
import { type Database, selectRows } from '../db/client';

/** The NOTIFY channel a commit that queued webhook events signals. */
export const OUTBOX_CHANNEL = 'launchdex_webhooks';

/** Event types a target may subscribe to. */
export const webhookEventTypes = ['trade', 'launch', 'graduation'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/**
 * The range's events as (kind, id, token, block, log, data) rows, read back from the rows the
 * write just put in, in the shapes of the stream's events (shared/stream/events.ts). An event's
 * id names the log in its block by hash: the same on every retry, and never reused by the
 * replacement of a block a reorg removed.
 */
const rangeEvents = (from: number, to: number) => sql`(
  select 'trade' as kind, 'trade:' || block_hash || ':' || log_index as event_id, token_address,
         block_number, log_index,
         json_build_object('token_address', token_address, 'trader', trader, 'side', side, 'source', source,
           'token_amount', token_amount::text, 'reserve_amount', reserve_amount::text, 'curve_value', curve_value::text,
           'protocol_fee', protocol_fee::text, 'creator_fee', creator_fee::text, 'block_number', block_number,
           'block_timestamp', block_timestamp, 'transaction_index', transaction_index,
           'transaction_hash', transaction_hash, 'log_index', log_index) as data
    from trades where block_number >= ${from} and block_number <= ${to}
  union all
  select 'launch', 'launch:' || created_block_hash || ':' || created_log_index, address,
         created_block, created_log_index,
         json_build_object('address', address, 'name', name, 'symbol', symbol, 'creator', creator,
           'created_at', created_at, 'block_number', created_block, 'transaction_hash', created_transaction_hash,
           'log_index', created_log_index)
    from tokens where created_block >= ${from} and created_block <= ${to}
  union all
  select 'graduation', 'graduation:' || e.block_hash || ':' || e.log_index, e.token_address,
         e.block_number, e.log_index,
         json_build_object('token_address', e.token_address, 'pool_address', t.pool_address,
           'block_number', e.block_number, 'block_timestamp', e.block_timestamp,
           'transaction_hash', e.transaction_hash, 'log_index', e.log_index)
    from chain_events e join tokens t on t.address = e.token_address
   where e.block_number >= ${from} and e.block_number <= ${to} and e.kind = 'graduation'
) e`;

/**
 * Queues the events of blocks `from`..`to` for every target whose filters match, in the
 * indexer's write transaction of that range (after its rows are in, before the checkpoint
 * moves): the outbox commits with the index or not at all. With no target configured this is
 * one read of a tiny table. Rows go in chain order (block, log index), under the checkpoint lock,
 * so `seq` order is chain order for each target.
 */
export async function enqueueWebhookEvents(t: Database, from: number, to: number): Promise<number> {
  const [targets] = await selectRows<{ n: number }>(t, sql`select count(*)::int as n from webhook_targets`);
  if (!targets || targets.n === 0) return 0;
  return queueEvents(t, from, to, undefined);
}

/** Queues blocks `from`..`to`'s events for the matching targets (all, or `target` alone), and signals. */
async function queueEvents(
  t: Database,
  from: number,
  to: number,
  target: string | undefined,
): Promise<number> {
  const [row] = await selectRows<{ n: number }>(
    t,
    sql`with queued as (
          insert into webhook_outbox (target_id, event_id, kind, block_number, body)
          select w.id, e.event_id, e.kind, e.block_number,
                 json_build_object('id', e.event_id, 'type', e.kind, 'data', e.data)::text
            from ${rangeEvents(from, to)}
            join webhook_targets w on e.kind = any(w.events)
                 and (w.token_address is null or w.token_address = e.token_address)
                 ${target === undefined ? sql`` : sql`and w.id = ${target}`}
           order by e.block_number, e.log_index, w.id
          returning 1)
        select count(*)::int as n from queued`,
  );
  const queued = row?.n ?? 0;
  // Delivered at commit (once per transaction): workers listening wake at once instead of at
  // their next poll (start.ts).
  if (queued > 0) await t.execute(sql`select pg_notify(${OUTBOX_CHANNEL}, '')`);
  return queued;
}

/**
 * Queues a target's events again from block `from` to the indexed head, in chain order, ahead
 * of every live event indexed after it (the checkpoint is held, so no range is written
 * meanwhile). Its never-tried events of those blocks are replaced, not doubled; events it already got
 * come again with the same ids (receivers deduplicate by id). A reorg later retracts replayed
 * events as it does live ones. The index keeps every event since its start block, so any block
 * up to the head can be replayed.
 */
export async function replayWebhookEvents(
  db: Database,
  target: string,
  from: number,
): Promise<{ queued: number; head: number } | { missing: true } | { beyond: number }> {
  return withCheckpointLock(db, async (t, checkpoint) => {
    const head = checkpoint?.indexedThroughBlock ?? 0;
    const [found] = await selectRows<{ id: string }>(
      t,
      sql`select id from webhook_targets where id = ${target}`,
    );
    if (!found) return { missing: true };
    if (from > head) return { beyond: head };
    // Only events never tried: one tried may have arrived, and its row is what a later reorg
    // retracts it by (retractWebhookEvents), so it stays, and its event comes again behind it.
    await t.execute(sql`delete from webhook_outbox
      where target_id = ${target} and attempted_at is null and block_number >= ${from}`);
    return { queued: await queueEvents(t, from, head, target), head };
  });
}

/**
 * Takes back, in a rollback's transaction, every queued event above block `kept`: one never sent
 * is dropped; one sent (delivered, or tried and perhaps received) is replaced by a retraction
 * queued behind everything the target has, naming the removed event's id. A receiver may thus
 * get a retraction for an id it never saw, and ignores it. A retraction's own id is new each time:
 * a rollback deeper than the fork re-indexes unchanged blocks, so an event may come back with its
 * id after a retraction, and be retracted again by a later reorg.
 */
export async function retractWebhookEvents(t: Database, kept: number): Promise<void> {
  await t.execute(
    sql`with removed as (
          delete from webhook_outbox where block_number > ${kept}
          returning seq, target_id, event_id, kind, block_number, attempted_at)
        insert into webhook_outbox (target_id, event_id, kind, block_number, body)
        select target_id, retraction_id, 'retraction', null,
               json_build_object('id', retraction_id, 'type', 'retraction',
                 'data', json_build_object('id', event_id, 'type', kind, 'block_number', block_number))::text
          from (select *, 'retraction:' || gen_random_uuid() as retraction_id from removed) r
         where attempted_at is not null
         order by seq`,
  );
}
