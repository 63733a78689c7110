import { sql } from 'drizzle-orm';
import { logIndexChange } from '../../db/checkpoint';
import { type Database, selectRows } from '../../db/client';
import { projectionTables } from '../../db/projection-tables';
import { bumpReadVersion } from '../../db/read-version';
import { enqueueWebhookEvents, retractWebhookEvents } from '../../webhooks/outbox';
import { quote } from './schema';

/** What a swap did: the rebuilt tables are live, or the live index is ahead of them (nothing changed). */
export type SwapResult =
  | {
      status: 'swapped';
      /** The live index's checkpoint before (null: it had none) and the rebuilt one's, now live. */
      from: number | null;
      to: number;
      /** The highest block both indexes hold with the same hash (below `from` after a reorg the live one had not seen). */
      ancestor: number | null;
    }
  | { status: 'behind'; live: number; rebuilt: number | null };

interface Head {
  block: number;
  hash: string;
}

/**
 * Swaps the projection tables of `target` in for those of `live`, in one transaction: every
 * reader and writer of every process sees the old index up to its commit and the rebuilt one
 * from it (statements name tables without a schema; PostgreSQL plans them again when a table
 * they used moves). Refused, changing nothing, while the rebuilt checkpoint is below the live
 * one: no client may see `indexed_through_block` go back.
 *
 * In the same transaction the live rows that stay are moved on as the live indexer would have:
 * bindings and exclusions made during the rebuild are applied to the rebuilt tokens; the stream's
 * change log and the webhook outbox get what the rebuilt index holds beyond the old one (a
 * rollback to the common ancestor when the old index held blocks the chain has replaced, then
 * the advance to the rebuilt checkpoint, with its events queued for the webhook targets).
 */
export async function swapIn(
  db: Database,
  schemas: { live: string; target: string; retired: string },
  lockTimeoutMs = 5_000,
): Promise<SwapResult> {
  const { live, target, retired } = schemas;
  const L = quote(live);
  const T = quote(target);
  let behind: Extract<SwapResult, { status: 'behind' }> | undefined;
  try {
    return await db.transaction(async (tx) => {
      const t = tx as unknown as Database;
      // Waiting longer would queue every read of the index behind this transaction.
      await t.execute(sql.raw(`set local lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`));
      await t.execute(sql.raw(`set local search_path to ${L}`));
      // Moderation and finalize write these, then `tokens`: taken in that order, nobody waits in a cycle.
      await t.execute(sql.raw(`lock table ${L}.metadata_drafts, ${L}.token_exclusions in share mode`));
      // The mirrors of bindings and exclusions, as the live index keeps them (moderation, finalize, the indexer's launches).
      await t.execute(
        sql.raw(`with wanted as (
          select t.address, exists (select 1 from token_exclusions x where x.token_address = t.address) as excluded,
                 d.id as draft_id, d.id is not null and coalesce(d.website_url, d.x_url, d.telegram_url, d.discord_url) is not null as has_links
            from ${T}.tokens t left join metadata_drafts d on d.bound_token_address = t.address)
        update ${T}.tokens t set excluded = w.excluded, draft_id = w.draft_id, has_links = w.has_links
          from wanted w
         where w.address = t.address and (t.excluded, t.draft_id, t.has_links) is distinct from (w.excluded, w.draft_id, w.has_links)`),
      );
      // The writes appended first (trades, chain events, balance intervals) first: a write that appended waits for nothing else of ours.
      const appended = ['trades', 'chain_events', 'balance_history'];
      const order = [...appended, ...projectionTables.filter((n) => !appended.includes(n))];
      await t.execute(
        sql.raw(`lock table ${order.map((n) => `${L}.${quote(n)}`).join(', ')} in access exclusive mode`),
      );
      const old = await head(t, live);
      const rebuilt = await head(t, target);
      if (!rebuilt || (old && rebuilt.block < old.block)) {
        behind = { status: 'behind', live: old?.block ?? 0, rebuilt: rebuilt?.block ?? null };
        // drizzle rolls a transaction back by a throw; this one is caught below.
        throw new Error('behind');
      }
      const [deferred] = await selectRows<{ n: number }>(
        t,
        sql.raw(`select count(*)::int as n from ${T}.deferred_indexes`),
      );
      if (deferred && deferred.n > 0)
        throw new Error('the rebuilt index still has deferred indexes to build');
      let ancestor: number | null = null;
      if (old) {
        const [common] = await selectRows<{ number: string | number | null }>(
          t,
          sql.raw(`select max(r.number) as number from ${L}.recent_blocks r
                    join ${T}.recent_blocks s on s.number = r.number and s.hash = r.hash
                   where r.number <= ${old.block}`),
        );
        if (common?.number === null || common?.number === undefined)
          throw new Error(
            `the rebuilt index and the live one share no recent block below ${old.block}: a reorg deeper than the finality depth`,
          );
        ancestor = Number(common.number);
      }

      await t.execute(sql.raw(`create schema ${quote(retired)}`));
      for (const table of projectionTables) {
        await moveTable(t, live, retired, table);
        await moveTable(t, target, live, table);
      }
      // From here the names are the rebuilt tables, beside the live log and outbox.
      if (old && ancestor !== null && ancestor < old.block) {
        await retractWebhookEvents(t, ancestor);
        const [kept] = await selectRows<{ hash: string }>(
          t,
          sql`select hash from recent_blocks where number = ${ancestor}`,
        );
        await logIndexChange(t, {
          kind: 'rollback',
          fromBlock: old.block,
          toBlock: ancestor,
          blockHash: kept?.hash ?? null,
        });
      }
      const from = ancestor === null ? 0 : ancestor + 1;
      if (rebuilt.block >= from) {
        await enqueueWebhookEvents(t, from, rebuilt.block);
        await logIndexChange(t, {
          kind: 'advance',
          fromBlock: from,
          toBlock: rebuilt.block,
          blockHash: rebuilt.hash,
        });
      }
      await bumpReadVersion(t);
      return { status: 'swapped', from: old?.block ?? null, to: rebuilt.block, ancestor } as const;
    });
  } catch (error) {
    if (behind) return behind;
    throw error;
  }
}

async function head(t: Database, schema: string): Promise<Head | undefined> {
  const [row] = await selectRows<{ block: string | number; hash: string }>(
    t,
    sql.raw(
      `select indexed_through_block as block, block_hash as hash from ${quote(schema)}.indexer_checkpoint where id = 'main'`,
    ),
  );
  return row ? { block: Number(row.block), hash: row.hash } : undefined;
}

/** Moves `table` and its partitions from schema `from` to `to`. */
async function moveTable(t: Database, from: string, to: string, table: string) {
  const partitions = await selectRows<{ name: string }>(
    t,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
         join pg_class p on p.oid = i.inhparent join pg_namespace n on n.oid = p.relnamespace
         where n.nspname = ${from} and p.relname = ${table}`,
  );
  for (const { name } of partitions)
    await t.execute(sql.raw(`alter table ${quote(from)}.${quote(name)} set schema ${quote(to)}`));
  await t.execute(sql.raw(`alter table ${quote(from)}.${quote(table)} set schema ${quote(to)}`));
}
