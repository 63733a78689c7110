import postgres from 'postgres';
import type { Address } from 'viem';
import { bondingCurveAbi } from '../../server/chain/abis';
import { openDatabase } from '../../server/db/client';
import { replayWebhookEvents } from '../../server/webhooks/outbox';
import { addWebhookTarget, removeWebhookTarget } from '../../server/webhooks/targets';
import { WAD } from '../../shared/units';
import { DEPLOYER, type TestChain } from '../../test/chain';
import { startStallProxy } from '../../test/stall-proxy';
import { startWebhookReceiver } from '../../test/webhook-receiver';

export interface WebhookThroughputOptions {
  databaseUrl: string;
  chain: TestChain;
  curve: Address;
  token: Address;
  /** Trades mined at once, then queued for each run's target at once (a replay). */
  backlog: number;
  /** One run per batch size (1: one event per POST). */
  batches: number[];
  /** Added to each direction of every connection, on top of a new connection's handshake. */
  latencyMs: number;
  /** A run stops here if its backlog is not through yet. */
  capSeconds: number;
  log(line: string): void;
}

export interface WebhookThroughputRun {
  batch: number;
  events: number;
  seconds: number;
  perSecond: number;
  posts: number;
  connections: number;
}

/**
 * Webhook throughput to a receiver `latencyMs` away: `backlog` trades are mined at once and
 * indexed; then, per batch size, a target behind a loopback TCP proxy (test/stall-proxy.ts:
 * `latencyMs` each way, a new connection's first bytes one round trip later, its handshake) is
 * added and replayed from the backlog's first block, and the events/s its receiver gets are timed
 * from the replay's commit to the last event (or to `capSeconds`). The server's worker delivers.
 */
export async function measureWebhookThroughput(
  options: WebhookThroughputOptions,
): Promise<WebhookThroughputRun[]> {
  const { chain, log } = options;
  log(`▶ webhook throughput: mining ${options.backlog} trades at once…`);
  const from = Number(await chain.client.getBlockNumber()) + 1;
  await chain.client.test.setAutomine(false);
  let last: `0x${string}` | undefined;
  for (let i = 0; i < options.backlog; i++)
    last = await chain.client.writeContract({
      address: options.curve,
      abi: bondingCurveAbi,
      functionName: 'buy',
      args: [0n, 2n ** 40n],
      value: WAD / 100_000n,
      account: DEPLOYER,
      gas: 300_000n,
    });
  while (last && !(await chain.client.getTransactionReceipt({ hash: last }).catch(() => undefined)))
    await chain.client.test.mine({ blocks: 1 });
  await chain.client.test.setAutomine(true);
  const to = Number(await chain.client.getBlockNumber());

  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => {} });
  const handle = await openDatabase({ kind: 'postgres', url: options.databaseUrl }, { max: 2 });
  const runs: WebhookThroughputRun[] = [];
  try {
    for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const [row] = await sql<
        { through: number }[]
      >`select indexed_through_block::int as through from indexer_checkpoint`;
      if ((row?.through ?? 0) >= to) break;
      if (Date.now() > deadline) throw new Error(`blocks ${from}..${to} were not indexed within 60 s`);
    }
    const [trades] = await sql<{ n: number }[]>`select count(*)::int as n from trades
      where token_address = ${options.token} and block_number between ${from} and ${to}`;
    const expected = trades?.n ?? 0;
    log(`  blocks ${from}..${to}: ${expected} trades indexed`);
    for (const batch of options.batches) {
      const receiver = await startWebhookReceiver();
      const proxy = await startStallProxy(Number(new URL(receiver.url).port), { handshake: true });
      proxy.latency(options.latencyMs);
      try {
        const target = await addWebhookTarget(handle.db, {
          url: `http://127.0.0.1:${proxy.port}/hooks`,
          tokenAddress: options.token,
          events: ['trade'],
          batchSize: batch,
        });
        receiver.secret = target.secret;
        await replayWebhookEvents(handle.db, target.id, from);
        const started = Date.now();
        const cap = started + options.capSeconds * 1000;
        while (new Set(receiver.applied.map((e) => e.id)).size < expected && Date.now() < cap)
          await new Promise((r) => setTimeout(r, 20));
        const events = new Set(receiver.applied.map((e) => e.id)).size;
        const seconds = ((receiver.applied.at(-1)?.receivedAt ?? Date.now()) - started) / 1000;
        const run = {
          batch,
          events,
          seconds,
          perSecond: events / seconds,
          posts: receiver.requests.length,
          connections: receiver.connections,
        };
        runs.push(run);
        log(
          `  batch ${batch}: ${events}/${expected} events in ${seconds.toFixed(1)} s = ${run.perSecond.toFixed(1)} events/s` +
            ` (${run.posts} POSTs, ${run.connections} connections, ${receiver.invalid} bad signatures)`,
        );
        await removeWebhookTarget(handle.db, target.id);
      } finally {
        await proxy.close();
        await receiver.close();
      }
    }
  } finally {
    await handle.close();
    await sql.end();
  }
  return runs;
}
