import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Database, selectRows } from '../db/client';
import type { Resolver } from '../metadata/ssrf';
import { createWebhookConnections } from './connections';
import { postWebhook, type WebhookPostOptions } from './deliver';
import { webhookMessage } from './message';
import { type RetryPolicy, retryDelayMs } from './retry';
import type { WebhookUrlPolicy } from './target-url';

export interface WebhookWorkerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface WebhookWorkerOptions {
  db: Database;
  resolver: Resolver;
  policy: WebhookUrlPolicy;
  retry: RetryPolicy;
  /** Deadline of each POST (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Targets this process delivers to at once (WEBHOOK_CONCURRENCY); each gets one POST at a time. */
  concurrency: number;
  /** How often it looks for targets with due events (WEBHOOK_POLL_MS). */
  pollMs: number;
  /** Delivered rows stay this many blocks below the index head, for a reorg to retract them. */
  finalityDepth: number;
  route?: WebhookPostOptions['route'];
  /** A test's certificate authority for a loopback HTTPS receiver. */
  ca?: string;
  logger: WebhookWorkerLogger;
  /** In [0, 1): the retry jitter. */
  random?: () => number;
}

export interface WebhookWorker {
  /** Delivers until `signal` aborts, then waits for the POSTs in flight (each under its deadline). */
  run(signal: AbortSignal): Promise<void>;
  /** Looks for due events now rather than at the next poll (new events were committed). */
  wake(): void;
}

type ClaimedTarget = { id: string };

const PRUNE_EVERY_MS = 60_000;
/** How much longer than one POST's deadline a lease lasts. */
export const LEASE_MARGIN_MS = 5_000;

/**
 * The delivery worker. Any number may run, in any processes, on one database: a target is
 * leased (FOR UPDATE SKIP LOCKED, then a lease time) by one worker at a time, which POSTs its
 * queue strictly in `seq` order, one POST at a time (one event, or up to the target's batch
 * size of consecutive events), on a kept-alive connection, and stops at the first failure; the
 * target then waits out its backoff. No transaction is held during a POST, so a slow target
 * holds no lock and no database connection; the indexer only ever inserts and, on a rollback,
 * deletes rows, one short statement each.
 *
 * @example createWebhookWorker({ db, resolver, policy, retry, timeoutMs: 10_000, concurrency: 4, pollMs: 200, finalityDepth: 64, logger }).run(signal)
 */
export function createWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const { db, logger } = options;
  const owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  // A lease outlives any one POST, and is renewed after each, so it lapses only when its
  // holder died (or stalled: then both may send the head once, in order): another worker takes
  // the target over and sends its head again. Short, so a killed process delays its targets little.
  const leaseMs = options.timeoutMs + LEASE_MARGIN_MS;
  const random = options.random ?? Math.random;
  const connections = createWebhookConnections({
    timeoutMs: options.timeoutMs,
    ...(options.ca ? { ca: options.ca } : {}),
  });
  const post: WebhookPostOptions = {
    resolver: options.resolver,
    policy: options.policy,
    timeoutMs: options.timeoutMs,
    connections,
    ...(options.route ? { route: options.route } : {}),
  };

  const claim = (limit: number) =>
    selectRows<ClaimedTarget>(
      db,
      sql`update webhook_targets w set lease_owner = ${owner}, lease_until = now() + ${leaseMs} * interval '1 millisecond'
           where w.id in (select c.id from webhook_targets c
                           where (c.lease_until is null or c.lease_until < now()) and c.next_attempt_at <= now()
                             and exists (select 1 from webhook_outbox o where o.target_id = c.id and o.delivered_at is null)
                           order by c.next_attempt_at limit ${limit} for update skip locked)
       returning w.id`,
    );

  /**
   * The head of the target's queue (its first `batch_size` rows), marked as sent, in `seq`
   * order, while this worker still holds the lease.
   */
  const nextEvents = async (targetId: string) => {
    const rows = await selectRows<{
      seq: string | number;
      event_id: string;
      body: string;
      url: string;
      secret: string;
      previous_secret: string | null;
      batch_size: number;
    }>(
      db,
      sql`with target as (select url, secret, batch_size,
                                 case when previous_secret_until > now() then previous_secret end as previous_secret
                            from webhook_targets
                           where id = ${targetId} and lease_owner = ${owner} and lease_until > now()),
               head as (select seq from webhook_outbox
                         where target_id = ${targetId} and delivered_at is null and exists (select 1 from target)
                         order by seq limit (select batch_size from target))
          update webhook_outbox o set attempted_at = now() from head, target
           where o.seq = head.seq
       returning o.seq, o.event_id, o.body, target.url, target.secret, target.previous_secret, target.batch_size`,
    );
    return rows.map((row) => ({ ...row, seq: Number(row.seq) })).sort((a, b) => a.seq - b.seq);
  };

  const release = (targetId: string) =>
    db.execute(sql`update webhook_targets set lease_owner = null, lease_until = null
      where id = ${targetId} and lease_owner = ${owner}`);

  /** Sends the target's queue in order until it is empty, a POST fails, or the worker stops. */
  const drain = async (targetId: string, signal: AbortSignal) => {
    try {
      while (!signal.aborted) {
        const events = await nextEvents(targetId);
        const [head] = events;
        if (!head) break;
        const secrets = head.previous_secret ? [head.secret, head.previous_secret] : [head.secret];
        const message = webhookMessage(
          events.map((event) => ({ id: event.event_id, body: event.body })),
          head.batch_size,
        );
        const outcome = await postWebhook({ id: targetId, url: head.url, secrets }, message, {
          ...post,
          signal,
        });
        // Stopping is not the target's fault: no attempt counted, the events stay at the head.
        if (signal.aborted && outcome.status === 'failed') break;
        if (outcome.status === 'delivered') {
          // All or none: a 2xx delivers every event the POST carried, anything else none of them.
          const seqs = sql.join(
            events.map((event) => sql`${event.seq}`),
            sql`, `,
          );
          await db.execute(sql`with sent as (update webhook_outbox set delivered_at = now() where seq in (${seqs}))
            update webhook_targets set delivered = delivered + ${events.length}, last_delivered_at = now(), attempts = 0,
              failing_since = null, last_error = null, lease_until = now() + ${leaseMs} * interval '1 millisecond'
             where id = ${targetId} and lease_owner = ${owner}`);
          continue;
        }
        const [state] = await selectRows<{ attempts: number }>(
          db,
          sql`select attempts from webhook_targets where id = ${targetId}`,
        );
        const attempts = (state?.attempts ?? 0) + 1;
        const delayMs = retryDelayMs(options.retry, attempts, random());
        await db.execute(sql`update webhook_targets set attempts = ${attempts}, failing_since = coalesce(failing_since, now()),
            last_error = ${outcome.error}, next_attempt_at = now() + ${delayMs} * interval '1 millisecond'
          where id = ${targetId} and lease_owner = ${owner}`);
        logger.warn(
          { target: targetId, event: message.id, attempts, retryInMs: delayMs, error: outcome.error },
          'webhook delivery failed',
        );
        break;
      }
    } catch (error) {
      logger.warn(
        { target: targetId, err: error instanceof Error ? error.message : String(error) },
        'webhook worker error',
      );
    } finally {
      await release(targetId).catch(() => {});
    }
  };

  /** Delivered rows no rollback can reach any more, and delivered retractions. */
  const prune = () =>
    db.execute(sql`delete from webhook_outbox where delivered_at is not null and (block_number is null
      or block_number < coalesce((select indexed_through_block from indexer_checkpoint), 0) - ${options.finalityDepth})`);

  let wakeUp: (() => void) | undefined;
  // A wake while the loop is busy claiming is kept for its next sleep, which then returns at once.
  let woken = false;
  return {
    wake: () => {
      woken = true;
      wakeUp?.();
    },
    async run(signal) {
      const inflight = new Set<Promise<void>>();
      // A stopping process (SIGTERM) may exit before its drains' own releases run: hand every
      // target back at once, so other processes need not wait for the leases to lapse.
      const releaseAll = () =>
        void db
          .execute(
            sql`update webhook_targets set lease_owner = null, lease_until = null where lease_owner = ${owner}`,
          )
          .catch(() => {});
      signal.addEventListener('abort', releaseAll, { once: true });
      let prunedAt = 0;
      while (!signal.aborted) {
        woken = false;
        try {
          const free = options.concurrency - inflight.size;
          if (free > 0) {
            for (const target of await claim(free)) {
              const work = drain(target.id, signal).finally(() => inflight.delete(work));
              inflight.add(work);
            }
          }
          if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
            prunedAt = Date.now();
            // Idle longer than any POST lasts: none of these connections carries one now.
            connections.dropIdle(PRUNE_EVERY_MS + options.timeoutMs);
            await prune();
          }
        } catch (error) {
          logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'webhook worker error',
          );
        }
        if (woken) continue;
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', wake);
            wakeUp = undefined;
            resolve();
          };
          wakeUp = wake;
          const timer = setTimeout(wake, options.pollMs);
          signal.addEventListener('abort', wake, { once: true });
        });
      }
      await Promise.allSettled(inflight);
      await connections.close();
    },
  };
}
