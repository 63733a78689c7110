/**
 * `node --import tsx scripts/bench-replicas.ts [--seconds 5] [--concurrency 8] [--tokens 5000]`
 * (`npm run bench:replicas`)
 *
 * One instance's REST read path on the primary against the same instance reading from a hot
 * standby of it on the same box (server/_test/replication.ts: a primary cluster of its own and a
 * `pg_basebackup -R` standby), uncached (READ_CACHE_MB=0's path) so every request reaches a
 * database; then the cost of the routing decision per request. In-process through the REST
 * dispatcher: what differs between the two runs is only the database that answers.
 */
import { parseArgs } from 'node:util';
import { fixtureToken, insertTokens, setCheckpoint } from '../server/_test/fixtures';
import { startReplicatedPostgres } from '../server/_test/replication';
import { createDatabaseTurn, processSlots } from '../server/api/database-share';
import { createRestDispatcher } from '../server/api/rest/dispatch';
import { restRoutes } from '../server/api/rest/registry';
import { answerWebRequest } from '../server/api/rest/web-request';
import type { Context } from '../server/api/trpc';
import { parseConfig } from '../server/config';
import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { openReadDatabases } from '../server/db/read-databases';
import { bumpReadVersion } from '../server/db/read-version';
import { createReplicaSet } from '../server/db/replicas';
import { createLogger } from '../server/logger';
import { createImageFetcher } from '../server/metadata/fetch-image';
import { openObjectStore } from '../server/objects/store';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '8' },
    tokens: { type: 'string', default: '5000' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const tokenCount = Number(values.tokens);

const pg = await startReplicatedPostgres();
try {
  const primary = await openDatabase({ kind: 'postgres', url: pg.primaryUrl });
  await migrateDatabase(primary);
  for (let first = 0; first < tokenCount; first += 500)
    await insertTokens(
      primary.db,
      Array.from({ length: Math.min(500, tokenCount - first) }, (_, i) => fixtureToken(first + i)),
    );
  await setCheckpoint(primary.db, 1_000);
  await bumpReadVersion(primary.db);
  await primary.exec('analyze');
  await pg.caughtUp();
  const sample = fixtureToken(7).address;
  const paths = [
    '/api/v1/tokens?limit=20',
    '/api/v1/tokens?sort=market_cap&limit=20',
    `/api/v1/tokens/${sample}`,
    '/api/v1/tokens?q=tok&limit=20',
  ];

  const env = { NODE_ENV: 'production', DATABASE_URL: pg.primaryUrl, READ_CACHE_MB: '0' };
  const run = async (label: string, readUrls: string | undefined) => {
    const config = parseConfig(readUrls ? { ...env, DATABASE_READ_URLS: readUrls } : env);
    const reads = await openReadDatabases(config, primary.db);
    const context: Context = {
      transport: 'caller',
      db: primary.db,
      config,
      clock: () => new Date(),
      objects: () => openObjectStore(config.objects),
      fetchImage: createImageFetcher(),
      chain: () => undefined,
      cursorSecret: 'bench-replicas-cursor-secret-0123456789',
    };
    // As a web process runs it: the anonymous client's database share included.
    const dispatcher = createRestDispatcher(restRoutes, {
      context,
      logger: createLogger(config),
      databases: reads,
      databaseTurn: createDatabaseTurn(
        processSlots(config.databaseSlotsPerClient, config.instanceWebWorkers),
      ),
    });
    for (const path of paths) {
      const request = () => answerWebRequest(dispatcher, new Request(`http://bench.local${path}`));
      for (let i = 0; i < 50; i++) await (await request()).arrayBuffer();
      const latencies: number[] = [];
      const deadline = performance.now() + seconds * 1_000;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < deadline) {
            const started = performance.now();
            const answer = await request();
            await answer.arrayBuffer();
            if (answer.status !== 200) throw new Error(`${path}: ${answer.status}`);
            latencies.push(performance.now() - started);
          }
        }),
      );
      latencies.sort((a, b) => a - b);
      const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0;
      console.log(
        `${label.padEnd(8)} ${path.padEnd(48)} ${(latencies.length / seconds).toFixed(0).padStart(6)} req/s  p99 ${p99.toFixed(2)} ms  reads ${JSON.stringify(reads.reads())}`,
      );
    }
    await reads.close();
  };
  // Twice on the primary, around the replica's run: the first run also warms the process up.
  await run('primary', undefined);
  await run('replica', pg.replicaUrl);
  await run('primary', undefined);

  // The routing decision alone, on a set of two polled replicas: what every read adds.
  const set = createReplicaSet({
    primary: 'p',
    replicas: [
      { name: 'a', db: 'a' },
      { name: 'b', db: 'b' },
    ],
    readPosition: async () => ({ block: 1_000, version: 1n }),
    maxLagBlocks: 16,
    pollMs: 60_000,
  });
  await set.poll();
  const rounds = 2_000_000;
  const started = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < rounds; i++) sink += set.route(i % 3 === 0 ? 999 : undefined).name.length;
  const perRoute = Number(process.hrtime.bigint() - started) / rounds;
  console.log(`route(): ${perRoute.toFixed(1)} ns per decision (${sink > 0 ? 'ok' : ''})`);
  await primary.close();
} finally {
  await pg.stop();
}
