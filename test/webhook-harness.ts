import { sql } from 'drizzle-orm';
import type { Address } from 'viem';
import { readIndexedThroughBlock } from '../server/db/checkpoint';
import { type Database, selectRows } from '../server/db/client';
import type { Resolver } from '../server/metadata/ssrf';
import { readIndexChanges } from '../server/stream/read-changes';
import { runWebhooksCommand } from '../server/webhooks/command';
import type { RetryPolicy } from '../server/webhooks/retry';
import { webhookStatus } from '../server/webhooks/targets';
import { createWebhookWorker, type WebhookWorkerOptions } from '../server/webhooks/worker';
import { reorgWithBuys, type TestChain } from './chain';
import { indexToHead } from './indexer/harness';

/** Fast retries for tests; never reported failing on its own. */
export const testRetry: RetryPolicy = { baseMs: 20, maxMs: 200, failingAfterMs: 24 * 3_600_000 };

export const noDns: Resolver = async () => {
  throw new Error('no DNS in tests');
};

export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * What the webhook integration suites share, over one database and one anvil chain: a worker
 * with loopback targets, no DNS, fast polls and retries; the operator's command; the index's
 * events as a receiver should hold them; buys and reorgs on the chain.
 */
export function webhookHarness(context: () => { db: Database; chain: TestChain }) {
  const running = new Set<() => Promise<void>>();
  let replacements = 0;

  const worker = (overrides: Partial<WebhookWorkerOptions> = {}) =>
    createWebhookWorker({
      db: context().db,
      resolver: noDns,
      policy: { allowLoopback: true },
      retry: testRetry,
      timeoutMs: 2_000,
      concurrency: 4,
      pollMs: 20,
      finalityDepth: 64,
      logger: { info: () => {}, warn: () => {} },
      ...overrides,
    });

  /** Runs the command against the test database: its exit code and every printed line. */
  async function command(
    args: string[],
    options: { resolver?: Resolver; allowLoopback?: boolean } = {},
  ): Promise<{ code: number; out: string[] }> {
    const out: string[] = [];
    const code = await runWebhooksCommand(args, {
      db: context().db,
      resolver: options.resolver ?? noDns,
      policy: { allowLoopback: options.allowLoopback ?? true },
      retry: testRetry,
      print: (line) => out.push(line),
      printError: (line) => out.push(line),
    });
    return { code, out };
  }

  /** The curves of the chain's tokens, oldest first. */
  const curves = async () =>
    (
      await selectRows<{ curve_address: Address }>(
        context().db,
        sql`select curve_address from tokens order by created_block`,
      )
    ).map((row) => row.curve_address);

  return {
    worker,
    command,
    /** Starts a worker; the function returned stops it and waits for its POSTs. */
    startWorker(overrides: Partial<WebhookWorkerOptions> = {}) {
      const controller = new AbortController();
      const done = worker(overrides).run(controller.signal);
      const stop = async () => {
        running.delete(stop);
        controller.abort();
        await done;
      };
      running.add(stop);
      return stop;
    },
    /** Stops the workers a test left running (it failed before stopping them). */
    async stopAll() {
      await Promise.all([...running].map((stop) => stop()));
    },
    index: () => indexToHead(context().db, context().chain, { chain: { maxRange: 1 } }),
    /** `add URL …`: the exit code, the new target's id and secret, and what it printed. */
    async add(url: string, options: { resolver?: Resolver; allowLoopback?: boolean; args?: string[] } = {}) {
      const { code, out } = await command(['add', url, ...(options.args ?? [])], options);
      const field = (name: string) => out.find((line) => line.startsWith(name))?.split(/\s+/)[1];
      return { code, id: field('id'), secret: field('secret'), errors: code === 0 ? [] : out };
    },
    async statusOf(id: string | undefined) {
      const target = (await webhookStatus(context().db, testRetry)).find((t) => t.id === id);
      if (!target) throw new Error(`no target ${id}`);
      return target;
    },
    /** What the index holds now, as webhook events (type and data) keyed by id, in chain order. */
    async canonical() {
      const { db, chain } = context();
      const head = await readIndexedThroughBlock(db);
      const events = (await readIndexChanges(db, chain.deployment.startBlock - 1, head, 100_000)).events;
      const ids = await selectRows<{ id: string; block: number; log: number }>(
        db,
        sql`select 'trade:' || block_hash || ':' || log_index as id, block_number as block, log_index as log from trades
            union all select 'launch:' || created_block_hash || ':' || created_log_index, created_block, created_log_index from tokens
            union all select 'graduation:' || block_hash || ':' || log_index, block_number, log_index from chain_events where kind = 'graduation'
            order by block, log`,
      );
      return new Map(ids.map((row, i) => [row.id, events[i]]));
    },
    /** Mines `blocks` blocks of one buy each by `trader`, on the tokens in turn. */
    async buy(trader: Address, blocks: number) {
      const { db, chain } = context();
      const all = await curves();
      for (let i = 0; i < blocks; i++) {
        const [token] = await selectRows<{ address: Address }>(
          db,
          sql`select address from tokens where curve_address = ${all[i % all.length]}`,
        );
        await chain.actions.buy({
          trader,
          token: token?.address as Address,
          value: 10n ** 16n * BigInt(i + 1),
        });
      }
    },
    /** Replaces the last `depth` blocks with blocks holding other buys, and mines one more. */
    async reorg(depth: number) {
      const { chain } = context();
      replacements = await reorgWithBuys(chain.client, depth, await curves(), replacements, 333n);
      await chain.client.test.mine({ blocks: 1 });
    },
  };
}
