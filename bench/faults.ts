/**
 * `npm run bench:faults -- [--clients 8] [--seconds 10]`
 *
 * What users see while a database fails, measured from outside: `npm run serve` (one worker, read
 * cache off, so every read reaches a database) over a PostgreSQL primary and a hot standby of its
 * own (test/replication.ts), `--clients` loops reading token lists back to back, then in
 * turn: the standby frozen (SIGSTOP: sockets open, nothing answers), the primary stopped and
 * started (`pg_ctl stop -m fast`), the primary frozen. For each phase: the readers' answers by
 * status and their p50/p99/max, and what a read that needs the primary, a draft upload,
 * `/api/health` and `/api/ready` answer and how fast. Prints a Markdown table
 * (docs/benchmarks.md, "Database faults"; docs/operations.md's failure table).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { openDatabase } from '../server/db/client';
import { migrateDatabase } from '../server/db/migrate';
import { bumpReadVersion } from '../server/db/read-version';
import { startAppServer } from '../test/app-server';
import { fixtureToken, insertTokens, setCheckpoint } from '../test/fixtures';
import { startReplicatedPostgres } from '../test/replication';
import { quantile } from './lib/measure';

const { values } = parseArgs({
  options: { clients: { type: 'string', default: '8' }, seconds: { type: 'string', default: '10' } },
});
const clients = Number(values.clients);
const phaseMs = Number(values.seconds) * 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const pg = await startReplicatedPostgres();
const setup = await openDatabase({ kind: 'postgres', url: pg.primaryUrl }, { max: 2 });
await migrateDatabase(setup);
await insertTokens(
  setup.db,
  Array.from({ length: 500 }, (_, i) => fixtureToken(i, { createdBlock: 100 + (i % 50) })),
);
await setCheckpoint(setup.db, 150);
await bumpReadVersion(setup.db);
await setup.close();
await pg.caughtUp();
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'launchdex-bench-faults-'));
const server = await startAppServer({
  DATABASE_URL: pg.primaryUrl,
  DATABASE_READ_URLS: pg.replicaUrl,
  READ_CACHE_MB: '0',
  DATA_DIR: dataDir,
  CURSOR_SECRET: 'bench-faults-cursor-secret-0123456789',
  // One client from loopback: its per-client bounds would measure the gate, not the failure.
  RATE_LIMIT_READS_PER_MINUTE: '0',
  DATABASE_MS_PER_SECOND_PER_CLIENT: '0',
  DATABASE_SLOTS_PER_CLIENT: String(clients),
});
const image = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#3b5bdb' } })
  .png()
  .toBuffer();

interface Answer {
  at: number;
  status: number;
  ms: number;
}
const answers: Answer[] = [];
const request = async (url: string, init?: RequestInit): Promise<Answer & { body: string }> => {
  const at = performance.now();
  try {
    const response = await fetch(`${server.baseUrl}${url}`, { ...init, signal: AbortSignal.timeout(30_000) });
    const body = await response.text();
    return { at, status: response.status, ms: performance.now() - at, body };
  } catch {
    return { at, status: 0, ms: performance.now() - at, body: '' };
  }
};
let loading = true;
const load = Promise.all(
  Array.from({ length: clients }, async (_, client) => {
    for (let i = 0; loading; i++) {
      const { body: _body, ...answer } = await request(`/api/v1/tokens?limit=${1 + ((i * 7 + client) % 50)}`);
      answers.push(answer);
    }
  }),
);

/** One probe of each kind of request that a user or a load balancer sends during a phase. */
async function probes() {
  const upload = new FormData();
  upload.append('name', 'Fault Bench');
  upload.append('symbol', 'FLT');
  upload.append('initial_supply', (10n ** 27n).toString());
  upload.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'image.png');
  const [newer, write, health, ready] = await Promise.all([
    request('/api/v1/tokens?limit=3', { headers: { 'x-min-indexed-block': '151' } }),
    request('/api/v1/token-metadata', { method: 'POST', body: upload }),
    request('/api/health'),
    request('/api/ready'),
  ]);
  const status = (answer: { body: string }) => {
    try {
      return (JSON.parse(answer.body) as { status?: string }).status ?? '';
    } catch {
      return '';
    }
  };
  const show = (answer: Answer) => `${answer.status || 'none'} in ${answer.ms.toFixed(0)} ms`;
  return {
    newer: show(newer),
    write: show(write),
    health: `${show(health)} (${status(health)})`,
    ready: `${show(ready)} (${status(ready)})`,
  };
}

const rows: string[] = [];
async function phase(name: string, fault: () => Promise<void>, recover?: () => Promise<void>) {
  await fault();
  const started = performance.now();
  await sleep(Math.min(1_500, phaseMs / 2));
  const during = await probes();
  await sleep(phaseMs - Math.min(1_500, phaseMs / 2));
  const ended = performance.now();
  let back = '';
  if (recover) {
    await recover();
    const recovered = performance.now();
    for (;;) {
      const ready = await request('/api/ready');
      if (ready.body.includes('"status":"ready"') && !ready.body.includes('"healthy":false')) break;
      if (performance.now() - recovered > 30_000) {
        back = 'not ready within 30 s';
        break;
      }
      await sleep(50);
    }
    back ||= `${((performance.now() - recovered) / 1000).toFixed(2)} s`;
    await sleep(1_000);
  }
  const inPhase = answers.filter((answer) => answer.at >= started && answer.at < ended);
  const byStatus = new Map<number, number>();
  for (const answer of inPhase) byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
  const ms = inPhase.map((answer) => answer.ms).sort((a, b) => a - b);
  const at = (q: number) => quantile(ms, q).toFixed(1);
  const statuses = [...byStatus.entries()]
    .map(([status, count]) => `${count}× ${status || 'none'}`)
    .join(', ');
  rows.push(
    `| ${name} | ${statuses} | ${at(0.5)} / ${at(0.99)} / ${(ms.at(-1) ?? 0).toFixed(0)} | ${during.newer} | ${during.write} | ${during.health} | ${during.ready} | ${back || '–'} |`,
  );
  console.log(rows.at(-1));
}

try {
  await sleep(1_000);
  await phase('quiet', async () => {});
  await phase(
    'standby frozen (SIGSTOP)',
    () => pg.freeze('replica'),
    () => pg.thaw('replica'),
  );
  await phase(
    'primary stopped, then started',
    () => pg.stopPrimary(),
    () => pg.startPrimary(),
  );
  await phase(
    'primary frozen (SIGSTOP)',
    () => pg.freeze('primary'),
    () => pg.thaw('primary'),
  );
} finally {
  loading = false;
  await load;
  await server.stop();
  await pg.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(
  `\n${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${clients} readers, ${phaseMs / 1000} s a phase; reads: GET /api/v1/tokens?limit=1..50, uncached\n`,
);
console.log(
  "| phase | readers' answers | readers' p50 / p99 / max ms | read newer than the standby | draft upload | /api/health | /api/ready | ready again after the fault ends |",
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
process.exit(0);
