/**
 * `npm run bench -- [--database-url URL] [--tokens N] [--trades N] [--duration S] [--connections 16,64] [--write]`
 *
 * Read API under load: seeds PostgreSQL at scale once (scripts/seed-scale.ts, kept between runs in
 * the `launchdex_bench` database), starts the production server (`npm run serve`, indexer off) and
 * drives each REST route with autocannon at the given concurrency levels. Prints a markdown table;
 * `--write` puts it into docs/benchmarks.md between the bench:api markers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { startAppServer } from '../server/_test/app-server';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/launchdex_bench' },
    tokens: { type: 'string', default: '1000000' },
    trades: { type: 'string', default: '2000000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16,64' },
    write: { type: 'boolean', default: false },
  },
});
const databaseUrl = values['database-url'];
const tokenCount = Number(values.tokens);
const duration = Number(values.duration);
const levels = values.connections.split(',').map(Number);

async function ensureSeeded(): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  const admin = postgres({ ...connectionOf(url), database: 'postgres', max: 1, onnotice: () => {} });
  const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
  if (!exists) await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  let count = 0;
  try {
    const [row] = await db`select count(*)::int as n from tokens`;
    count = Number(row?.n ?? 0);
  } catch {
    // not migrated yet: the seed script migrates
  }
  await db.end();
  if (count >= tokenCount) {
    console.log(`▶ ${name} already holds ${count} tokens (delete the database to reseed)`);
    return;
  }
  console.log(`▶ seeding ${name}: ${tokenCount} tokens, ${values.trades} trades (one-off, minutes)…`);
  const seeded = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/seed-scale.ts',
      '--database-url',
      databaseUrl,
      '--tokens',
      values.tokens,
      '--trades',
      values.trades,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (seeded.status !== 0) process.exit(seeded.status ?? 1);
}

function connectionOf(url: URL) {
  return { host: url.hostname, port: Number(url.port || 5432), username: decodeURIComponent(url.username) };
}

interface Row {
  route: string;
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(
  baseUrl: string,
  label: string,
  pathAndQuery: string,
  connections: number,
): Promise<Row> {
  const result = await autocannon({ url: `${baseUrl}${pathAndQuery}`, connections, duration, pipelining: 1 });
  return {
    route: label,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

await ensureSeeded();
const server = await startAppServer({
  DATABASE_URL: databaseUrl,
  INDEXER_MODE: 'off',
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'launchdex-bench-')),
  CURSOR_SECRET: 'bench',
});
try {
  const get = async <T>(pathAndQuery: string): Promise<T> => {
    const response = await fetch(`${server.baseUrl}${pathAndQuery}`);
    if (!response.ok) throw new Error(`${pathAndQuery}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  // The seed gives token 1 six percent of all trades: the busiest chart, trades and holders.
  const busy = `0x${'1'.padStart(40, '0')}`;
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const body: { next_cursor: string | null } = await get(
      `/api/v1/tokens?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    cursor = body.next_cursor;
  }
  const holders = await get<{ items: { wallet: string }[] }>(`/api/v1/tokens/${busy}/holders?limit=1`);
  const wallet = holders.items[0]?.wallet;
  const routes: [string, string][] = [
    ['tokens, page 1', '/api/v1/tokens'],
    ['tokens, page 501 (keyset)', `/api/v1/tokens?cursor=${cursor}`],
    ['tokens?view=top', '/api/v1/tokens?view=top'],
    ['tokens/trending', '/api/v1/tokens/trending'],
    ['tokens?search=pepe1 (narrow)', '/api/v1/tokens?search=pepe1'],
    ['token detail', `/api/v1/tokens/${busy}`],
    ['chart 1h × 1000', `/api/v1/tokens/${busy}/chart?interval=1h&limit=1000`],
    ['trades, busiest token', `/api/v1/tokens/${busy}/trades`],
    ['holders', `/api/v1/tokens/${busy}/holders`],
    ['wallet holdings', `/api/v1/wallets/${wallet}/holdings`],
  ];
  const rows: Row[] = [];
  for (const [label, pathAndQuery] of routes) {
    await get(pathAndQuery); // warm: prepared statements and route compilation
    for (const connections of levels) {
      const row = await measure(server.baseUrl, label, pathAndQuery, connections);
      console.log(
        `  ${label.padEnd(30)} c=${String(connections).padStart(3)}  ${String(row.requestsPerSecond).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms${row.errors ? `  errors ${row.errors}` : ''}`,
      );
      rows.push(row);
    }
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const table = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB,`,
    `Node ${process.version}, PostgreSQL on loopback, one \`npm run serve\` process (indexer off), ${tokenCount.toLocaleString('en-US')} tokens /`,
    `${Number(values.trades).toLocaleString('en-US')} trades; autocannon on the same machine, ${duration} s per row:`,
    `\`npm run bench -- --tokens ${values.tokens} --trades ${values.trades} --duration ${values.duration} --connections ${values.connections}\`.`,
    '',
    '| route | connections | req/s | p50 ms | p99 ms | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) => `| ${r.route} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} |`,
    ),
  ].join('\n');
  console.log(`\n${table}\n`);
  if (values.write) {
    const file = path.join(root, 'docs', 'benchmarks.md');
    const text = readFileSync(file, 'utf8');
    const start = '<!-- bench:api:start -->';
    const end = '<!-- bench:api:end -->';
    const block = `${start}\n${table}\n${end}`;
    writeFileSync(
      file,
      text.includes(start)
        ? text.replace(new RegExp(`${start}[\\s\\S]*${end}`), block)
        : `${text.trimEnd()}\n\n## Read API under load\n\n${block}\n`,
    );
    console.log('▶ docs/benchmarks.md updated');
  }
} finally {
  await server.stop();
}
