/**
 * `npm run bench:live`: head-to-API latency. A private anvil mines one block with a curve trade
 * at a steady rate; the production server (`npm run serve`, its indexer embedded, default poll
 * unless `--poll-ms`) indexes it; a client polls the REST trades list of the token every 10 ms.
 * For each block: the time from the block being mined (its transaction's send returning, under
 * automine) to the first REST answer that lists the trade. Prints the distribution.
 *
 *   npm run bench:live -- [--database-url postgres://postgres@127.0.0.1:5432/postgres]
 *     [--blocks 200] [--interval-ms 450] [--poll-ms N] [--webhook] [--stream]
 *     [--webhook-backlog 1000] [--webhook-batch 1,100] [--webhook-latency-ms 50] [--webhook-seconds 30]
 *
 * `--webhook`: also a webhook target (a loopback receiver, added before the server starts), and
 * the time from the block being mined to the receiver getting its trade's POST; then the
 * throughput to a receiver `--webhook-latency-ms` away each way (bench/lib/webhook-throughput.ts):
 * a backlog of `--webhook-backlog` trades drained once per `--webhook-batch` size.
 * `--stream`: also one subscriber of `GET /api/v1/stream?token=…`, and the time from the block
 * being mined to its trade event arriving.
 *
 * Needs the production build (`npm run build`).
 */
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import type { Address } from 'viem';
import { bondingCurveAbi } from '../server/chain/abis';
import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { addWebhookTarget, removeWebhookTarget } from '../server/webhooks/targets';
import { WAD } from '../shared/units';
import { startAppServer } from '../test/app-server';
import { DEPLOYER, GENESIS, startTestChain } from '../test/chain';
import { parseFrames } from '../test/stream-client';
import { startWebhookReceiver } from '../test/webhook-receiver';
import { quantile } from './lib/measure';
import { measureWebhookThroughput } from './lib/webhook-throughput';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    blocks: { type: 'string', default: '200' },
    'interval-ms': { type: 'string', default: '450' },
    'poll-ms': { type: 'string' },
    webhook: { type: 'boolean', default: false },
    'webhook-backlog': { type: 'string', default: '1000' },
    'webhook-batch': { type: 'string', default: '1,100' },
    'webhook-latency-ms': { type: 'string', default: '50' },
    'webhook-seconds': { type: 'string', default: '30' },
    stream: { type: 'boolean', default: false },
  },
});
const blocks = Number(values.blocks);
const intervalMs = Number(values['interval-ms']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

console.log('▶ starting anvil and deploying the launchpad…');
const chain = await startTestChain({ genesisTimestamp: GENESIS });
const launched = await chain.actions.launch({
  creator: DEPLOYER,
  name: 'Live Bench',
  symbol: 'LIVE',
  supply: 1_000_000_000n * WAD,
  metadataHash: `0x${'01'.padStart(64, '0')}`,
  firstBuy: WAD / 100n,
});
const token = launched.token.toLowerCase() as Address;

const admin = postgres(values['database-url'], { max: 1, onnotice: () => {} });
const dbName = `launchdex_live_${process.pid}`;
await admin.unsafe(`create database ${dbName}`);
const url = new URL(values['database-url']);
url.pathname = `/${dbName}`;

let server: Awaited<ReturnType<typeof startAppServer>> | undefined;
const receiver = values.webhook ? await startWebhookReceiver() : undefined;
let liveTarget: string | undefined;
try {
  if (receiver) {
    const handle = await openDatabase({ kind: 'postgres', url: url.toString() }, { max: 1 });
    await migrateDatabase(handle);
    const target = { url: receiver.url, tokenAddress: null, events: ['trade' as const] };
    const added = await addWebhookTarget(handle.db, target);
    receiver.secret = added.secret;
    liveTarget = added.id;
    await handle.close();
  }
  console.log('▶ starting the server with its indexer embedded…');
  server = await startAppServer({
    DATABASE_URL: url.toString(),
    RPC_URL: chain.anvil.rpcUrl,
    CHAIN_ID: '31337',
    FACTORY_ADDRESS: chain.deployment.contracts.factory,
    START_BLOCK: String(chain.deployment.startBlock),
    INDEXER_MODE: 'embedded',
    DEV_WALLET: 'off',
    ...(receiver ? { WEBHOOK_ALLOW_LOOPBACK: 'true' } : {}),
    ...(values['poll-ms'] ? { INDEXER_POLL_MS: values['poll-ms'] } : {}),
  });
  const base = server.baseUrl;
  const recentTrades = async (): Promise<string[]> => {
    const response = await fetch(`${base}/api/v1/tokens/${token}/trades?limit=20`);
    if (response.status !== 200) return [];
    const body = (await response.json()) as { items: { transaction_hash: string }[] };
    return body.items.map((item) => item.transaction_hash);
  };
  const firstHash = launched.hash.toLowerCase();
  for (const deadline = Date.now() + 60_000; !(await recentTrades()).includes(firstHash); await sleep(50))
    if (Date.now() > deadline) throw new Error('the launch did not reach the API within 60 s');

  // Open loop: blocks are mined on a fixed schedule whatever the API does, and one client
  // watches the newest trades, so each block meets the poll at its own phase.
  console.log(`▶ ${blocks} blocks, one trade each, every ${intervalMs} ms…`);
  /** One way a trade reaches a client: when each pending trade was mined, and the latencies seen. */
  const path = () => {
    const minedAt = new Map<string, number>();
    const latencies: number[] = [];
    const seen = (hash: string, now: number) => {
      const mined = minedAt.get(hash);
      if (mined === undefined) return;
      latencies.push(now - mined);
      minedAt.delete(hash);
    };
    return { minedAt, latencies, seen };
  };
  const api = path();
  const hook = path();
  const stream = path();
  let sending = true;
  const applied = receiver?.applied;
  let seen = 0;
  const hookWatcher = (async () => {
    while (applied && (sending || hook.minedAt.size > 0)) {
      for (; seen < applied.length; seen++) {
        const event = applied[seen];
        if (event) hook.seen(String(event.data.transaction_hash), event.receivedAt);
      }
      if ([...hook.minedAt.values()].some((mined) => Date.now() - mined > 30_000))
        throw new Error('a trade did not reach the webhook receiver within 30 s');
      await sleep(10);
    }
  })();
  const watcher = (async () => {
    while (sending || api.minedAt.size > 0) {
      const now = performance.now();
      for (const hash of await recentTrades()) api.seen(hash, now);
      for (const [hash, mined] of api.minedAt)
        if (now - mined > 30_000) throw new Error(`trade ${hash} did not reach the API within 30 s`);
      await sleep(10);
    }
  })();
  // One stream subscriber, as a bot would hold it: trade events of the token as they come.
  const subscription = new AbortController();
  const streamReader = values.stream
    ? (async () => {
        const response = await fetch(`${base}/api/v1/stream?token=${token}`, { signal: subscription.signal });
        if (response.status !== 200 || !response.body)
          throw new Error(`the stream answered ${response.status}`);
        const decoder = new TextDecoder();
        let buffer = '';
        try {
          for await (const chunk of response.body) {
            const now = performance.now();
            const parsed = parseFrames(buffer + decoder.decode(chunk, { stream: true }));
            buffer = parsed.rest;
            for (const frame of parsed.frames)
              if (frame.type === 'trade') stream.seen(String(frame.data.transaction_hash), now);
          }
        } catch (error) {
          if (!subscription.signal.aborted) throw error;
        }
      })()
    : undefined;
  const started = performance.now();
  for (let i = 0; i < blocks; i++) {
    const hash = (
      await chain.client.writeContract({
        address: launched.curve,
        abi: bondingCurveAbi,
        functionName: 'buy',
        args: [0n, 2n ** 40n],
        value: WAD / 1000n,
        account: DEPLOYER,
        gas: 300_000n,
      })
    ).toLowerCase();
    // Under automine the block exists when the send returns.
    api.minedAt.set(hash, performance.now());
    if (values.stream) stream.minedAt.set(hash, performance.now());
    if (receiver) hook.minedAt.set(hash, Date.now());
    if ((i + 1) % 50 === 0) console.log(`  ${i + 1}/${blocks}`);
    await sleep(Math.max(0, started + (i + 1) * intervalMs - performance.now()));
  }
  sending = false;
  await watcher;
  await hookWatcher;
  const sorted = (latencies: number[]) => [...latencies].sort((a, b) => a - b);
  const ms = (v: number) => `${Math.round(v)} ms`;
  const summary = (latencies: number[]) =>
    `p50 ${ms(quantile(latencies, 0.5))} · p90 ${ms(quantile(latencies, 0.9))} · p99 ${ms(quantile(latencies, 0.99))} · max ${ms(quantile(latencies, 1))}`;
  if (streamReader) {
    for (const deadline = Date.now() + 30_000; stream.minedAt.size > 0; await sleep(10))
      if (Date.now() > deadline)
        throw new Error(`${stream.minedAt.size} trades did not reach the stream within 30 s`);
    subscription.abort();
    await streamReader;
    const latencies = sorted(stream.latencies);
    console.log(`\n✔ block to stream subscriber over ${latencies.length} blocks: ${summary(latencies)}`);
  }
  if (receiver) {
    const latencies = sorted(hook.latencies);
    console.log(
      `\n✔ block to webhook receiver over ${latencies.length} blocks: ${summary(latencies)} (${receiver.invalid} bad signatures)`,
    );
  }

  const latencies = sorted(api.latencies);
  const at = (q: number) => quantile(latencies, q);
  const poll = values['poll-ms'] ?? 'default';
  console.log(
    `\n✔ head to API over ${latencies.length} blocks (poll ${poll}): ${summary(latencies)} · min ${ms(at(0))}`,
  );
  const buckets = [100, 200, 300, 400, 500, 750, 1000, 1500, Number.POSITIVE_INFINITY];
  let lower = 0;
  for (const upper of buckets) {
    const count = latencies.filter((v) => v >= lower && v < upper).length;
    const label = Number.isFinite(upper) ? `< ${upper} ms` : `≥ ${lower} ms`;
    console.log(
      `  ${label.padEnd(10)} ${String(count).padStart(4)} ${'█'.repeat(Math.round((count / latencies.length) * 50))}`,
    );
    lower = upper;
  }
  console.log(
    `\n| ${new Date().toISOString().slice(0, 10)} | ${cpus()[0]?.model.trim()} ×${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB | poll ${poll} | ${latencies.length} blocks every ${intervalMs} ms | ${ms(at(0.5))} | ${ms(at(0.9))} | ${ms(at(0.99))} | ${ms(at(1))} |`,
  );
  if (liveTarget) {
    // The latency target has done its part: the backlog is for the throughput targets alone.
    const handle = await openDatabase({ kind: 'postgres', url: url.toString() }, { max: 1 });
    await removeWebhookTarget(handle.db, liveTarget);
    await handle.close();
    const latencyMs = Number(values['webhook-latency-ms']);
    const runs = await measureWebhookThroughput({
      databaseUrl: url.toString(),
      chain,
      curve: launched.curve,
      token,
      backlog: Number(values['webhook-backlog']),
      batches: (values['webhook-batch'] ?? '1').split(',').map(Number),
      latencyMs,
      capSeconds: Number(values['webhook-seconds']),
      log: console.log,
    });
    for (const run of runs)
      console.log(
        `| ${new Date().toISOString().slice(0, 10)} | ${latencyMs} ms each way | batch ${run.batch} | ${run.events} events | ${run.seconds.toFixed(1)} s | ${run.perSecond.toFixed(1)} events/s | ${run.posts} POSTs | ${run.connections} connections |`,
      );
  }
} finally {
  await server?.stop();
  await receiver?.close();
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  await chain.stop();
}
