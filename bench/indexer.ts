/**
 * `npm run bench:indexer`: backfill throughput of the indexer into PostgreSQL.
 *
 * Builds a chain on a private anvil with 20 launches and, through a load-generator contract,
 * ~130k launchpad events (curve buys: Trade + Transfer; scattered transfers to fresh wallets)
 * after ~4k empty blocks, as a real chain has long stretches without launchpad events. Then indexes it from scratch
 * into a fresh PostgreSQL database and reports events/s and blocks/s, the event store's size per
 * event, then rebuilds the index from its stored logs (`npm run indexer -- rebuild`) and reports
 * the replay's events/s (no RPC) beside the backfill's.
 *
 *   npm run bench:indexer -- [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--scale 1]
 *     [--rebuild] [--keep] [--on-top-of postgres://…/launchdex_bench] [--events-per-write N]
 *
 * `BENCH_REPLAY_PROFILE=file.cpuprofile` writes a V8 CPU profile of the replay (`BENCH_BACKFILL_PROFILE`: of the
 * backfill); `BENCH_KEEP_DB=1` leaves the
 * run's database behind (to look at its rows).
 * `BENCH_FUNDING_HOPS=0` runs it without the funding check (trader labels' whole-block reads).
 * `--database-url`: the PostgreSQL server (any database on it) where the run creates, and then
 * drops, its own database. `--on-top-of`: index instead into an existing database that already
 * holds data (the `npm run seed:scale` dataset), to show the rate as the tables grow; the
 * benchmark chain starts at block 10M, after the seeded history, and the run sets that
 * database's checkpoint aside and puts it back afterwards, removing everything it indexed. `--keep`: after the run, leave the benchmark anvil up and print what a
 * peer indexer needs to index exactly the same logs (RPC URL, chain id, factory, start block).
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { textArray } from '../server/db/bulk';
import { openDatabase, selectRows } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { INDEXER_NODE_FLAGS } from '../server/indexer/heap';
import { createIndexer } from '../server/indexer/indexer';
import { defaultLabelParams } from '../server/indexer/project/traders';
import { rebuildIndex } from '../server/indexer/rebuild/rebuild';
import { createRpcClient } from '../server/indexer/rpc/client';
import { webhookEventTypes } from '../server/webhooks/outbox';
import { addWebhookTarget } from '../server/webhooks/targets';
import { DEV, GENESIS_NUMBER, measureFloor, openBenchChain } from './indexer-lib/chain';
import { measureDatabaseFloor } from './indexer-lib/database-floor';
import { restoreSeededRows, setSeededRowsAside } from './indexer-lib/seeded-rows';
import { forkingServerCpuSeconds, parentPid, treeCpuSeconds } from './lib/process-cpu';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    /** The former name of --database-url. */
    postgres: { type: 'string' },
    scale: { type: 'string', default: '1' },
    rebuild: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'on-top-of': { type: 'string' },
    /** Events per projection transaction (the indexer's default otherwise). */
    'events-per-write': { type: 'string' },
  },
});
// The indexer runs here with the heap flags of `npm run indexer`: its peak RSS depends on them.
const missingFlags = INDEXER_NODE_FLAGS.filter((flag) => !process.execArgv.includes(flag));
if (missingFlags.length > 0)
  console.log(
    `▶ warning: node runs without ${missingFlags.join(' ')} (the flags of \`npm run indexer\`): peak RSS and time are not the indexer's; use \`npm run bench:indexer\``,
  );
if (values.postgres) console.log('▶ --postgres is now --database-url (the same flag as `npm run bench`)');
const serverUrl = values['database-url'] ?? values.postgres ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const scale = Number(values.scale);
if (!(scale > 0)) throw new Error(`--scale takes a positive number, not ${values.scale}`);
// Events per projection transaction, in the backfill and the replay (the indexer's default otherwise).
const eventsPerWriteText = values['events-per-write'] ?? process.env.BENCH_EVENTS_PER_WRITE;
const eventsPerWrite = eventsPerWriteText === undefined ? 0 : Number(eventsPerWriteText);
if (!Number.isSafeInteger(eventsPerWrite) || eventsPerWrite < 0)
  throw new Error(
    `--events-per-write (or BENCH_EVENTS_PER_WRITE) takes a whole number of events, not ${eventsPerWriteText}`,
  );
const { anvil, deployment, head, keepBuilt, keepForPeer } = await openBenchChain(scale, values.rebuild);

const onTopOf = values['on-top-of'];
const admin = postgres(onTopOf ?? serverUrl, { max: 1, onnotice: () => {} });
const dbName = `launchdex_bench_${process.pid}`;
if (!onTopOf) await admin.unsafe(`create database ${dbName}`);
const url = new URL(serverUrl);
url.pathname = `/${dbName}`;
const handle = await openDatabase({ kind: 'postgres', url: onTopOf ?? url.toString() }, { max: 4 });
const startRss = process.memoryUsage().rss;
let peakRss = startRss;
// Where the peak sits: the JavaScript heap, or buffers outside it (sockets, COPY data).
let peakHeap = 0;
let peakExternal = 0;
const rssSampler = setInterval(() => {
  const memory = process.memoryUsage();
  peakRss = Math.max(peakRss, memory.rss);
  peakHeap = Math.max(peakHeap, memory.heapUsed);
  peakExternal = Math.max(peakExternal, memory.external);
}, 50);
try {
  await migrateDatabase(handle);
  if (onTopOf) await setSeededRowsAside(admin);
  // BENCH_WEBHOOK_TARGETS=N: N all-event webhook targets, so every write fills the outbox too.
  for (let i = 0; i < Number(process.env.BENCH_WEBHOOK_TARGETS ?? 0); i++)
    await addWebhookTarget(handle.db, {
      url: `https://hooks${i}.example/`,
      tokenAddress: null,
      events: [...webhookEventTypes],
    });
  const [version] = await selectRows<{ server_version: string }>(handle.db, sql`show server_version`);
  const logger = {
    info: (_: Record<string, unknown>, message: string) => console.log(`  ${message}`),
    warn: (_: Record<string, unknown>, message: string) => console.log(`  warn: ${message}`),
    error: (_: Record<string, unknown>, message: string) => console.log(`  error: ${message}`),
  };
  // The floor of the same run: the node serving every log of the chain once, bare (one
  // eth_getLogs, parsed, nothing decoded or written). No indexer can be faster than its RPC. It
  // runs in a child process: its one parsed answer (hundreds of MB at --scale 3) would otherwise
  // sit in this process's heap and count as the indexer's peak RSS.
  const floor = await measureFloor(anvil.rpcUrl, deployment.startBlock, head);
  const floorLogs = floor.logs;
  const floorSeconds = floor.seconds;
  console.log(
    `▶ RPC floor: eth_getLogs of all ${floorLogs} logs in one request, parsed: ${floorSeconds.toFixed(2)}s (${Math.round(floorLogs / floorSeconds)} logs/s)`,
  );
  const rpc = createRpcClient({
    url: anvil.rpcUrl,
    ...(process.env.BENCH_MAX_RESPONSE_MB
      ? { maxResponseBytes: Number(process.env.BENCH_MAX_RESPONSE_MB) * 2 ** 20 }
      : {}),
  });
  const chain = {
    rpcUrl: anvil.rpcUrl,
    chainId: 31337,
    factoryAddress: deployment.contracts.factory,
    startBlock: BigInt(deployment.startBlock),
    finalityDepth: 64,
    maxRange: 50_000,
    pollIntervalMs: 100,
    // BENCH_FUNDING_HOPS=0: without the funding check's whole-block reads, to measure what they cost.
    ...(process.env.BENCH_FUNDING_HOPS
      ? { labels: { ...defaultLabelParams, fundingHops: Number(process.env.BENCH_FUNDING_HOPS) } }
      : {}),
    ...(process.env.BENCH_HISTORY_SEGMENT_MIN_EVENTS
      ? { historySegmentMinEvents: Number(process.env.BENCH_HISTORY_SEGMENT_MIN_EVENTS) }
      : {}),
  };
  const indexer = createIndexer({
    db: handle.db,
    rpc,
    chain,
    logger,
    progressIntervalMs: 1_000,
    ...(eventsPerWrite ? { eventsPerWrite } : {}),
    ...(process.env.BENCH_TARGET_LOGS ? { targetLogsPerBatch: Number(process.env.BENCH_TARGET_LOGS) } : {}),
    ...(process.env.BENCH_RANGE_SLICES ? { rangeSlices: Number(process.env.BENCH_RANGE_SLICES) } : {}),
  });
  const [sizes] = await selectRows<{ trades: string; events: string; tokens: string }>(
    handle.db,
    sql`select (select sum(greatest(reltuples, 0))::bigint from pg_class where oid in (select inhrelid from pg_inherits where inhparent = 'trades'::regclass)) as trades,
               (select sum(greatest(reltuples, 0))::bigint from pg_class where oid in (select inhrelid from pg_inherits where inhparent = 'chain_events'::regclass)) as events,
               (select reltuples::bigint from pg_class where relname = 'tokens') as tokens`,
  );
  console.log(
    onTopOf
      ? `▶ indexing on top of ${Number(sizes?.tokens).toLocaleString('en')} tokens / ${Number(sizes?.trades).toLocaleString('en')} trades / ${Number(sizes?.events).toLocaleString('en')} events already stored…`
      : '▶ indexing from scratch into PostgreSQL…',
  );
  // Where the CPU goes during the run, per process: on two cores the indexer, anvil and the
  // database compete, and time one of them saves can go to the others instead of the run.
  const [backend] = await selectRows<{ pid: number }>(handle.db, sql`select pg_backend_pid() as pid`);
  const postmaster = backend ? parentPid(backend.pid) : undefined;
  const anvilPid = anvil.process.pid;
  const cpuNow = () => ({
    indexer: process.cpuUsage(),
    // The indexer's thread (its event loop's busy time): the process's CPU also counts V8's GC helpers.
    thread: performance.eventLoopUtilization(),
    anvil: anvilPid === undefined ? 0 : treeCpuSeconds(anvilPid),
    postgres: postmaster === undefined ? undefined : forkingServerCpuSeconds(postmaster),
  });
  const cpuBefore = cpuNow();
  // BENCH_BACKFILL_PROFILE=file.cpuprofile: the same for the backfill.
  const backfillProfile = process.env.BENCH_BACKFILL_PROFILE
    ? await startCpuProfile(process.env.BENCH_BACKFILL_PROFILE)
    : undefined;
  const started = performance.now();
  await indexer.syncToHead();
  await backfillProfile?.stop();
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuNow();
  const blocks = head - deployment.startBlock + 1;
  const benchTokens = textArray(
    (
      await selectRows<{ address: string }>(
        handle.db,
        sql`select address from tokens where creator = ${DEV} and created_block >= ${GENESIS_NUMBER}`,
      )
    ).map((row) => row.address),
  );
  const counts = await selectRows<Record<string, string>>(
    handle.db,
    sql`select (select count(*) from chain_events where token_address = any(${benchTokens})) as events,
               (select count(*) from trades where token_address = any(${benchTokens})) as trades,
               (select count(*) from balances where token_address = any(${benchTokens})) as balances,
               (select count(*) from candles where token_address = any(${benchTokens})) as candles,
               (select count(*) from balance_history where token_address = any(${benchTokens})) as history`,
  );
  // What balance history costs on disk: its heap and indexes over its rows (bench tokens' only, unless on top of a seed).
  const [stored] = await selectRows<{ rows: string; bytes: string }>(
    handle.db,
    sql`select count(*) as rows, pg_total_relation_size('balance_history') as bytes from balance_history`,
  );
  const c = counts[0] ?? {};
  const indexedEvents = Number(c.events);
  console.log(
    `\n✔ indexed ${indexedEvents} events (${c.trades} trades, ${c.balances} balances, ${c.candles} candles) in ${blocks} blocks in ${seconds.toFixed(2)}s`,
  );
  console.log(
    `  ${Math.round(indexedEvents / seconds)} events/s · ${Math.round(blocks / seconds)} blocks/s · ${indexer.status.batches} batches · fetch ${(indexer.status.fetchMs / 1000).toFixed(2)}s · project ${(indexer.status.projectMs / 1000).toFixed(2)}s`,
  );
  console.log(`  ${(seconds / floorSeconds).toFixed(2)}× the RPC floor of this run`);
  console.log(
    `  balance history: ${c.history} rows; ${Number(stored?.bytes).toLocaleString('en')} bytes with its indexes, ${Math.round(Number(stored?.bytes) / Math.max(1, Number(stored?.rows)))} per row`,
  );
  console.log(`  ${indexer.status.fundingBlocks} whole blocks read for the funding check`);
  const indexerCpu = process.cpuUsage(cpuBefore.indexer);
  const postgresCpu =
    cpuAfter.postgres === undefined || cpuBefore.postgres === undefined
      ? 'PostgreSQL not on this machine'
      : `PostgreSQL ${(cpuAfter.postgres - cpuBefore.postgres).toFixed(2)}s`;
  console.log(
    `  CPU during the run: indexer ${((indexerCpu.user + indexerCpu.system) / 1e6).toFixed(2)}s (its thread busy ${threadBusy(cpuBefore.thread)}) · anvil ${(cpuAfter.anvil - cpuBefore.anvil).toFixed(2)}s · ${postgresCpu} (${cpus().length} cores × ${seconds.toFixed(2)}s = ${(cpus().length * seconds).toFixed(2)}s)`,
  );
  const [store] = await selectRows<{
    bytes: string;
    body: string;
    raw: string;
    logs: string;
    events: string;
  }>(
    handle.db,
    sql`select pg_total_relation_size('raw_log_chunks') as bytes, sum(pg_column_size(body)) as body,
               sum(octet_length(body)) as raw, sum(logs) as logs,
               (select sum(pg_total_relation_size(inhrelid)) from pg_inherits where inhparent = 'chain_events'::regclass) as events
          from raw_log_chunks`,
  );
  const storedLogs = Number(store?.logs);
  const storedBytes = Number(store?.bytes);
  console.log(
    `  event store: ${storedLogs} logs in ${(Number(store?.bytes) / 2 ** 20).toFixed(1)} MiB on disk, ${(Number(store?.bytes) / storedLogs).toFixed(0)} B per event (chunks ${(Number(store?.raw) / storedLogs).toFixed(0)} B per event, ${(Number(store?.body) / storedLogs).toFixed(0)} B stored); chain_events ${(Number(store?.events) / storedLogs).toFixed(0)} B per event`,
  );
  console.log(
    `  peak RSS ${Math.round(peakRss / 2 ** 20)} MiB (${Math.round(startRss / 2 ** 20)} MiB before indexing; peak heap used ${Math.round(peakHeap / 2 ** 20)} MiB, external ${Math.round(peakExternal / 2 ** 20)} MiB)`,
  );
  if (!onTopOf) {
    // The same index rebuilt from what it stored: the replay reads no log from the RPC.
    let replayCpu = cpuNow();
    // The read API's indexes of the large tables are built once, sorted, before the swap: part of the replay's cost.
    let indexBuildMs = 0;
    // BENCH_REPLAY_PROFILE=file.cpuprofile: a V8 CPU profile of the replay alone (open it in Chrome's DevTools).
    let replayProfile: { stop(): Promise<void> } | undefined;
    let buildStarted = 0;
    const rebuilt = await rebuildIndex({
      database: { kind: 'postgres', url: url.toString() },
      chain,
      rpc,
      ...(eventsPerWrite ? { indexer: { eventsPerWrite } } : {}),
      logger: {
        ...logger,
        info: (fields: Record<string, unknown>, message: string) => {
          if (message.startsWith('building the indexes deferred')) buildStarted = performance.now();
          else if (typeof fields.index === 'string') indexBuildMs = performance.now() - buildStarted;
        },
      },
      async onPhase(phase) {
        if (phase === 'catch-up') {
          await replayProfile?.stop();
          const now = cpuNow();
          const indexerCpu = process.cpuUsage(replayCpu.indexer);
          console.log(
            `  replay CPU: indexer ${((indexerCpu.user + indexerCpu.system) / 1e6).toFixed(2)}s (its thread busy ${threadBusy(replayCpu.thread)}) · PostgreSQL ${now.postgres === undefined || replayCpu.postgres === undefined ? '?' : (now.postgres - replayCpu.postgres).toFixed(2)}s`,
          );
        }
        if (phase === 'replay') {
          replayCpu = cpuNow();
          if (process.env.BENCH_REPLAY_PROFILE)
            replayProfile = await startCpuProfile(process.env.BENCH_REPLAY_PROFILE);
        }
      },
    });
    const { replayed, caughtUp } = rebuilt;
    console.log(
      `\n✔ rebuilt from the stored logs: replayed ${replayed.events} events (blocks ${replayed.from}–${replayed.to}) in ${replayed.seconds.toFixed(2)}s, ${Math.round(replayed.events / replayed.seconds)} events/s (${replayed.fundingBlocks} blocks read from the RPC; ${(seconds / replayed.seconds).toFixed(2)}× faster than the backfill of this run)`,
    );
    const withIndexes = replayed.seconds + indexBuildMs / 1000;
    console.log(
      `  with the deferred indexes built (${(indexBuildMs / 1000).toFixed(2)}s): ${Math.round(replayed.events / withIndexes)} events/s`,
    );
    console.log(
      `  then ${caughtUp.events} events from the RPC to the head and the swap in ${caughtUp.seconds.toFixed(2)}s; the store holds ${(storedBytes / storedLogs).toFixed(0)} B per event`,
    );
    // The replay's other floor: how fast PostgreSQL alone takes the rows it writes (database-floor.ts).
    const floorCpu = cpuNow();
    const dbFloor = await measureDatabaseFloor(url.toString());
    const floorPostgres =
      floorCpu.postgres === undefined ? undefined : (cpuNow().postgres ?? 0) - floorCpu.postgres;
    const floorRate = indexedEvents / dbFloor.seconds;
    console.log(
      `▶ database floor: every row of the index's projections (${dbFloor.rows} rows, ${(dbFloor.bytes / 2 ** 20).toFixed(1)} MiB of COPY text) COPYed bare on one connection in ${dbFloor.seconds.toFixed(2)}s (PostgreSQL CPU ${floorPostgres?.toFixed(2) ?? '?'}s): ${Math.round(floorRate)} events/s; the replay ran at ${(replayed.events / replayed.seconds / floorRate).toFixed(2)}× it`,
    );
    console.log(
      `  slowest: ${dbFloor.tables
        .slice(0, 4)
        .map((t) => `${t.table} ${t.rows} rows ${t.seconds.toFixed(2)}s`)
        .join(' · ')}`,
    );
  }
  console.log(
    `\n| ${new Date().toISOString().slice(0, 10)} | ${cpus()[0]?.model.trim()} ×${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB | PostgreSQL ${version?.server_version.split(' ')[0]} | ${indexedEvents} events / ${blocks} blocks | ${seconds.toFixed(2)} s | ${Math.round(indexedEvents / seconds)} events/s | ${Math.round(blocks / seconds)} blocks/s |`,
  );
  await keepBuilt();
} finally {
  clearInterval(rssSampler);
  if (onTopOf) await restoreSeededRows(admin);
  await handle.close();
  if (!onTopOf && !process.env.BENCH_KEEP_DB)
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  if (values.keep) await keepForPeer();
  await anvil.stop();
}

/** The event loop's busy time since `since`, and its share of the wall time. */
function threadBusy(since: ReturnType<typeof performance.eventLoopUtilization>): string {
  const { active, utilization } = performance.eventLoopUtilization(since);
  return `${(active / 1000).toFixed(2)}s, ${Math.round(utilization * 100)} %`;
}

async function startCpuProfile(file: string): Promise<{ stop(): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`  CPU profile: ${file}`);
    },
  };
}
