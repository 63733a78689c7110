/**
 * `npm run fuzz -- [--runs N] [--seed S] [--database-url URL] [--only name,…] [--launches N] [--actions N]`
 *
 * Deep run of the property-based fuzzer (test/fuzz/): starts anvil with a simulated
 * market, the production server (`npm run serve`) indexing it into PGlite, or into PostgreSQL
 * with `--database-url` (a fresh database `<name>_<id>` is created beside the one named and
 * dropped afterwards: a fresh chain needs an empty database), then fuzzes every operation of the
 * served OpenAPI document and every tRPC procedure, `--runs` requests per property. Prints a
 * progress line per property and a summary; exits 1 on any failure. CI runs the same properties
 * in server/http/fuzz.int.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { startAppServer } from '../test/app-server';
import { startSimulatedChain } from '../test/chain';
import { fetchFrom, freshLoopbackClient } from '../test/client-fetch';
import { collectCorpus } from '../test/fuzz/corpus';
import { FUZZ_SERVER_ENV, runFuzz, servedOperations } from '../test/fuzz/runner';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '200' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000_000) },
    'database-url': { type: 'string' },
    only: { type: 'string' },
    launches: { type: 'string', default: '20' },
    actions: { type: 'string', default: '300' },
  },
});
const runs = Number(values.runs);
const seed = Number(values.seed);
const started = Date.now();
const say = (line: string) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

/** A fresh database beside the one `url` names, and how to drop it. */
async function freshPostgres(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = new URL(url);
  const name = `${base.pathname.slice(1) || 'launchdex_fuzz'}_${randomBytes(4).toString('hex')}`;
  const admin = () =>
    postgres({
      host: base.hostname,
      port: Number(base.port || 5432),
      username: decodeURIComponent(base.username),
      password: decodeURIComponent(base.password),
      database: 'postgres',
      max: 1,
      onnotice: () => {},
    });
  const sql = admin();
  await sql.unsafe(`create database "${name}"`);
  await sql.end();
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return {
    url: fresh.toString(),
    drop: async () => {
      const dropper = admin();
      await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      await dropper.end();
    },
  };
}

say(`simulating a market: ${values.launches} launches, ${values.actions} actions`);
const { chain } = await startSimulatedChain({
  seed: 7,
  launches: Number(values.launches),
  actions: Number(values.actions),
});
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'launchdex-fuzz-'));
const database = values['database-url'] ? await freshPostgres(values['database-url']) : undefined;
say(
  `starting the server on ${database ? `PostgreSQL (${new URL(database.url).pathname.slice(1)})` : 'PGlite'}`,
);
const server = await startAppServer({
  DATA_DIR: dataDir,
  ...(database ? { DATABASE_URL: database.url } : {}),
  RPC_URL: chain.anvil.rpcUrl,
  CHAIN_ID: '31337',
  FACTORY_ADDRESS: chain.deployment.contracts.factory,
  START_BLOCK: String(chain.deployment.startBlock),
  INDEXER_MODE: 'embedded',
  INDEXER_POLL_MS: '100',
  ...FUZZ_SERVER_ENV,
});

let failed = true;
try {
  const head = Number(await chain.client.getBlockNumber());
  for (;;) {
    const health = (await (await fetch(`${server.baseUrl}/api/health`)).json()) as {
      indexer: { indexed_through_block: number | null };
    };
    if ((health.indexer.indexed_through_block ?? 0) >= head) break;
    if (Date.now() - started > 300_000)
      throw new Error(`the index did not reach block ${head}:\n${server.output().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const clients = [0, 1, 2, 3].map(() => fetchFrom(freshLoopbackClient()));
  const operations = await servedOperations(server.baseUrl, clients[0] as typeof fetch);
  const corpus = await collectCorpus(server.baseUrl, clients[0] as typeof fetch, operations);
  say(
    `indexed through block ${head}; corpus: ${corpus.tokens.length} tokens, ${corpus.wallets.length} wallets, ${corpus.cursors.length} cursors, ${corpus.drafts.length} drafts`,
  );
  say(`fuzzing with seed ${seed}, ${runs} runs per property`);
  const report = await runFuzz({
    baseUrl: server.baseUrl,
    clients,
    corpus,
    runs,
    seed,
    ...(values.only ? { only: values.only.split(',') } : {}),
    residentBytes: () => server.residentBytes(),
    log: say,
  });
  console.log(
    [
      '',
      `command: npm run fuzz -- ${process.argv.slice(2).join(' ')} (seed ${seed})`,
      `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}, ${database ? 'PostgreSQL' : 'PGlite'}`,
      ...report.summary,
    ].join('\n'),
  );
  failed = report.failures.length > 0;
  if (failed) console.log(`\nserver log (tail):\n${server.output().slice(-4000)}`);
} finally {
  await server.stop();
  await database?.drop();
  await chain.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
