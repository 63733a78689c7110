/**
 * `npm run indexer`: the indexer as its own process. With PostgreSQL it takes the leader lock
 * first (a second instance waits as standby). With embedded PGlite it runs alone: PGlite allows
 * one process per data directory, so do not run it beside `npm run serve` on the same DATA_DIR.
 *
 * `npm run indexer -- rebuild [--keep-old] [--from-rpc]`: recomputes every projection from the stored logs
 * beside the live index, catches up from the RPC and swaps the result in, then exits
 * (server/indexer/rebuild/rebuild.ts; docs/operations.md, "Upgrades"). The live indexer keeps
 * running meanwhile (PostgreSQL; on PGlite nothing else may have the directory open).
 */

import { createServer } from 'node:http';
import { readIndexedThroughBlock } from '../server/db/checkpoint';
import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { createIndexer } from '../server/indexer/indexer';
import { acquireLeadership, type Leadership } from '../server/indexer/leader';
import { rebuildIndex } from '../server/indexer/rebuild/rebuild';
import { createRpcClient } from '../server/indexer/rpc/client';
import { rebuildAtStart } from '../server/indexer/upgrade';
import { createLogger } from '../server/logger';
import { createChainHead } from '../server/observability/chain-head';
import { createMetrics } from '../server/observability/metrics';
import { loadConfigOrExit } from './cli';

const config = loadConfigOrExit();
const logger = createLogger(config).child({ component: 'indexer' });
const chain = config.chain;
if (!chain) {
  logger.error(
    {},
    `no chain configured: set RPC_URL, CHAIN_ID, FACTORY_ADDRESS and START_BLOCK, or run \`npm run devnet\` (manifest ${config.deploymentManifestPath})`,
  );
  process.exit(1);
}

const [command, ...flags] = process.argv.slice(2);
if (command === 'rebuild') {
  const unknown = flags.filter((flag) => flag !== '--keep-old' && flag !== '--from-rpc');
  if (unknown.length > 0) {
    logger.error(
      {},
      `unknown option ${unknown.join(' ')} (npm run indexer -- rebuild [--keep-old] [--from-rpc])`,
    );
    process.exit(1);
  }
  const rpc = createRpcClient({
    url: chain.rpcUrl,
    maxResponseBytes: chain.maxResponseBytes,
    timeoutMs: chain.rpcTimeoutMs,
    onRetry: ({ attempt, delayMs, reason }) => logger.warn({ attempt, delayMs, reason }, 'RPC retry'),
  });
  try {
    const report = await rebuildIndex({
      database: config.database,
      chain,
      rpc,
      logger: logger.child({ component: 'rebuild' }),
      keepOld: flags.includes('--keep-old'),
      fromRpc: flags.includes('--from-rpc'),
    });
    logger.info(report, 'rebuild done');
  } catch (error) {
    logger.fatal({ err: error instanceof Error ? error.message : String(error) }, 'rebuild failed');
    process.exitCode = 1;
  }
  process.exit();
} else if (command !== undefined) {
  logger.error({}, `unknown command ${command} (npm run indexer [-- rebuild [--keep-old] [--from-rpc]])`);
  process.exit(1);
}

const stop = new AbortController();
process.on('SIGINT', () => stop.abort());
process.on('SIGTERM', () => stop.abort());

const handle = await openDatabase(config.database, { max: 4, applicationName: 'launchdex-indexer' });
await migrateDatabase(handle);
const rpc = createRpcClient({
  url: chain.rpcUrl,
  maxResponseBytes: chain.maxResponseBytes,
  timeoutMs: chain.rpcTimeoutMs,
  onRetry: ({ attempt, delayMs, reason }) => logger.warn({ attempt, delayMs, reason }, 'RPC retry'),
});
// An index built by an older release is rebuilt: beside the live one on PostgreSQL (the indexer
// below keeps following the chain, readers keep reading it until the swap), before it on PGlite
// (one session per directory).
await rebuildAtStart(handle, { chain, rpc, logger: logger.child({ component: 'rebuild' }) });
let indexer = createIndexer({ db: handle.db, rpc, chain, logger });
if (config.metricsPort > 0) {
  const metrics = createMetrics({
    indexedThroughBlock: () => readIndexedThroughBlock(handle.db).catch(() => null),
    chainHead: createChainHead(chain),
    indexer: () => indexer.status,
  });
  const server = createServer(async (request, response) => {
    if (request.url !== '/metrics') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': metrics.registry.contentType });
    response.end(await metrics.registry.metrics());
  });
  server.listen(config.metricsPort, config.host);
  stop.signal.addEventListener('abort', () => server.close());
  logger.info({ port: config.metricsPort }, 'metrics at /metrics');
}
logger.info(
  { rpc: chain.rpcUrl, factory: chain.factoryAddress, startBlock: Number(chain.startBlock) },
  'indexer starting',
);
// Terms of leadership: with PostgreSQL, the indexer writes only while it holds the lock; a lost
// lock (the lock's session ended: a database restart, a failover, a frozen server cut by its
// deadline) ends the term, and the process waits to lead again instead of exiting. Each term
// starts a fresh indexer from the checkpoint: another leader may have written meanwhile.
try {
  for (let term = 0; !stop.signal.aborted; term++) {
    let leadership: Leadership | undefined;
    if (config.database.kind === 'postgres') {
      leadership = await acquireLeadership(config.database, logger, stop.signal).catch((error: unknown) => {
        if (stop.signal.aborted) return undefined;
        throw error;
      });
      if (!leadership) break;
      if (term > 0) indexer = createIndexer({ db: handle.db, rpc, chain, logger });
    }
    try {
      await indexer.run(leadership ? AbortSignal.any([stop.signal, leadership.lost]) : stop.signal);
    } finally {
      await leadership?.release();
    }
    if (!leadership) break;
  }
} catch (error) {
  logger.fatal({ err: error instanceof Error ? error.message : String(error) }, 'indexer halted');
  process.exitCode = 1;
} finally {
  await handle.close().catch(() => {});
}
