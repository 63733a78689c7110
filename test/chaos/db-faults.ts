import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inArray } from 'drizzle-orm';
import sharp from 'sharp';
import type { Random } from '../../server/chain/simulator/random';
import type { DatabaseConfig } from '../../server/config';
import { metadataDrafts } from '../../server/db/schema';
import { openMigrated, type TestDatabase } from '../database';
import type { Difference } from '../oracle/compare';
import { type ReplicatedPostgres, startReplicatedPostgres } from '../replication';
import { type StallProxy, startStallProxy } from '../stall-proxy';

/**
 * The database faults of `npm run chaos -- --faults db`: the seed's database is a PostgreSQL
 * primary with a hot standby of its own (test/replication.ts), each behind a loopback TCP
 * proxy, and every process (indexer, web, settle server) reaches them as an operator configures
 * it: `DATABASE_URL` naming both hosts with `target_session_attrs=read-write`, the standby in
 * `DATABASE_READ_URLS`. One fault at a time, at seeded steps: a server frozen (SIGSTOP) or
 * restarted, a proxy that delays every chunk or holds every byte (a partition), and in some
 * seeds the primary stopped for good and the standby promoted. A reader and a draft uploader load
 * the web process meanwhile; no request may go unanswered past its deadlines plus a second.
 */
/** The faults, the primary's then the standby's (the order seeds draw them in), and the promote. */
const faultKinds = [
  'freeze-primary',
  'restart-primary',
  'latency-primary',
  'blackhole-primary',
  'freeze-standby',
  'restart-standby',
  'latency-standby',
  'blackhole-standby',
  'promote',
] as const;
export type DatabaseFaultKind = (typeof faultKinds)[number];

/** Deadlines of the processes under fault, shorter than the defaults so a seed stays short. */
export const dbFaultEnv = {
  DATABASE_HEARTBEAT_MS: '250',
  DATABASE_HEARTBEAT_DEADLINE_MS: '1000',
  DATABASE_CONNECT_TIMEOUT_MS: '1000',
  READ_ACQUIRE_TIMEOUT_MS: '2000',
  READ_STATEMENT_TIMEOUT_MS: '2000',
};

/**
 * A request unanswered this long hung: the longest path through the deadlines (a session
 * acquired at the acquire deadline, then a statement that runs to the statement timeout) plus 1 s.
 */
export const DB_FAULT_HUNG_MS =
  Number(dbFaultEnv.READ_ACQUIRE_TIMEOUT_MS) + Number(dbFaultEnv.READ_STATEMENT_TIMEOUT_MS) + 1_000;

export interface DatabaseFaults {
  /** The seed's database, as the processes are configured for it. */
  readonly database: TestDatabase;
  readonly counts: Record<DatabaseFaultKind, number>;
  /** One step of the scenario: may start a fault while none runs (it ends on its own). */
  step(index: number): void;
  /** Ends the running fault; every server left up, answering and (with a standby) caught up. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startDatabaseFaults(
  random: Random,
  steps: number,
  log: (line: string) => void,
): Promise<DatabaseFaults> {
  const cluster: ReplicatedPostgres = await startReplicatedPostgres();
  const proxies: Record<'primary' | 'standby', StallProxy> = {
    primary: await startStallProxy(Number(new URL(cluster.primaryUrl).port)),
    standby: await startStallProxy(Number(new URL(cluster.replicaUrl).port)),
  };
  const at = (proxy: StallProxy) => `127.0.0.1:${proxy.port}`;
  const url = `postgres://postgres@${at(proxies.primary)},${at(proxies.standby)}/launchdex?target_session_attrs=read-write`;
  const readUrl = `postgres://postgres@${at(proxies.standby)}/launchdex`;
  const config: DatabaseConfig = { kind: 'postgres', url };
  const dataDir = mkdtempSync(path.join(tmpdir(), 'launchdex-chaos-db-'));
  const database: TestDatabase = {
    backend: 'postgres',
    config,
    env: { DATABASE_URL: url, DATABASE_READ_URLS: readUrl, DATA_DIR: dataDir, ...dbFaultEnv },
    open: () => openMigrated(config),
    drop: async () => {},
  };
  // Migrated before any process starts, so a web process never starts read-only on an empty standby.
  await (await openMigrated(config)).close();

  const counts = Object.fromEntries(faultKinds.map((kind) => [kind, 0])) as Record<DatabaseFaultKind, number>;
  // The cluster's server that is the primary now (the standby's after a promote).
  let primary: 'primary' | 'replica' = 'primary';
  const promoteAt = random.chance(0.4) ? random.int(Math.floor(steps / 4), Math.floor(steps / 2)) : -1;
  let running: Promise<void> | undefined;
  // A fault that could not be applied fails the seed at its settle, not the process at once.
  let failure: unknown;
  if (promoteAt >= 0) log(`  database faults: the standby is promoted at step ${promoteAt} of ${steps}`);

  const fault = async (kind: DatabaseFaultKind) => {
    const holdMs = random.int(300, 3_000);
    const role = kind.endsWith('-primary') ? 'primary' : 'standby';
    const server = role === 'primary' ? primary : 'replica';
    const proxy =
      role === 'primary' ? (primary === 'primary' ? proxies.primary : proxies.standby) : proxies.standby;
    counts[kind]++;
    log(`  database fault: ${kind}${kind === 'promote' ? '' : ` for ${holdMs} ms`}`);
    if (kind === 'promote') {
      await cluster.stopPrimary();
      await cluster.promoteReplica();
      primary = 'replica';
      return;
    }
    if (kind.startsWith('freeze')) {
      await cluster.freeze(server);
      await sleep(holdMs);
      await cluster.thaw(server);
    } else if (kind.startsWith('restart')) {
      await (server === 'primary' ? cluster.stopPrimary() : cluster.stopReplica());
      await sleep(holdMs);
      await (server === 'primary' ? cluster.startPrimary() : cluster.startReplica());
    } else if (kind.startsWith('latency')) {
      proxy.latency(random.int(20, 300));
      await sleep(holdMs);
      proxy.latency(0);
    } else {
      proxy.stall();
      await sleep(holdMs);
      proxy.resume();
    }
  };

  return {
    database,
    counts,
    step(index) {
      if (running) return;
      let kind: DatabaseFaultKind | undefined;
      // At its step, or the first one after it that no other fault holds (none starts meanwhile).
      const promoting = promoteAt >= 0 && index >= promoteAt && primary === 'primary';
      if (promoting) kind = 'promote';
      else if (random.chance(0.3)) {
        // After a promote there is no standby left to fault.
        const standby = primary === 'primary';
        kind = random.pick(
          faultKinds.filter((k) => k.endsWith('-primary') || (standby && k.endsWith('-standby'))),
        );
      }
      if (!kind) return;
      running = fault(kind)
        .catch((error: unknown) => {
          failure ??= error;
        })
        .finally(() => {
          running = undefined;
        });
    },
    async settle() {
      await running;
      if (failure) throw failure;
      if (primary === 'primary') await cluster.caughtUp(60_000);
    },
    async stop() {
      await running?.catch(() => {});
      await proxies.primary.close();
      await proxies.standby.close();
      await cluster.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface LoadStats {
  requests: number;
  /** Answers by status (0: no answer: the web process was down, or the request was cut). */
  statuses: Record<string, number>;
  /** Requests not answered within DB_FAULT_HUNG_MS. */
  hung: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  drafts: number;
  /** Why requests got no answer: the first few distinct reasons. */
  unanswered: string[];
}

/**
 * Reads (token lists and details, readiness) and draft uploads against the web process beside
 * the indexer, back to back while it is up. The acknowledged drafts must all be stored at the end.
 */
export function startChaosLoad(target: () => string | undefined) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const slow: string[] = [];
  const drafts: string[] = [];
  /** Why requests got no answer (the first few distinct reasons). */
  const unanswered: string[] = [];
  let running = true;
  const timed = async (url: string, init?: RequestInit): Promise<Response | undefined> => {
    const base = target();
    if (!base) {
      await sleep(50);
      return undefined;
    }
    const started = performance.now();
    let response: Response | undefined;
    try {
      response = await fetch(`${base}${url}`, { ...init, signal: AbortSignal.timeout(30_000) });
      await response.clone().arrayBuffer();
    } catch (error) {
      response = undefined;
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      const what = `${init?.method ?? 'GET'} ${url.split('?')[0]}: ${cause}`;
      if (unanswered.length < 5 && !unanswered.includes(what)) unanswered.push(what);
    }
    const ms = performance.now() - started;
    // A request cut by a web restart answers nothing at once: it did not hang.
    if (ms > DB_FAULT_HUNG_MS) slow.push(`${init?.method ?? 'GET'} ${url}: ${Math.round(ms)} ms`);
    latencies.push(ms);
    const status = String(response?.status ?? 0);
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (!response) await sleep(50);
    return response;
  };
  const reader = async (n: number) => {
    for (let i = 0; running; i++) {
      const list = await timed(`/api/v1/tokens?limit=${1 + ((i * 7 + n) % 30)}`);
      const tokens = list?.ok ? ((await list.json()) as { items?: { address: string }[] }).items : undefined;
      const token = tokens?.[i % Math.max(1, tokens.length)];
      if (token) await timed(`/api/v1/tokens/${token.address}`);
      if (i % 10 === 0) await timed('/api/ready');
    }
  };
  const writer = async () => {
    const image = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#2f9e44' } })
      .png()
      .toBuffer();
    for (let i = 0; running; i++) {
      const form = new FormData();
      form.append('name', `Chaos draft ${i}`);
      form.append('symbol', `CD${i % 1000}`);
      form.append('initial_supply', (10n ** 27n).toString());
      form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'image.png');
      const response = await timed('/api/v1/token-metadata', { method: 'POST', body: form });
      if (response?.status === 201) drafts.push(((await response.json()) as { draft_id: string }).draft_id);
      await sleep(200);
    }
  };
  const loops = [reader(0), reader(1), writer()];
  return {
    drafts,
    async stop(): Promise<LoadStats> {
      running = false;
      await Promise.all(loops);
      const sorted = [...latencies].sort((a, b) => a - b);
      const quantile = (q: number) => Math.round(sorted[Math.floor((sorted.length - 1) * q)] ?? 0);
      return {
        requests: latencies.length,
        statuses,
        hung: slow.length,
        p50Ms: quantile(0.5),
        p99Ms: quantile(0.99),
        maxMs: Math.round(sorted[sorted.length - 1] ?? 0),
        drafts: drafts.length,
        unanswered,
      };
    },
    slow,
  };
}

/** Every acknowledged draft is stored on the primary at the end: none lost to a fault or a failover. */
export async function compareDrafts(
  database: TestDatabase,
  drafts: readonly string[],
): Promise<Difference[]> {
  if (drafts.length === 0) return [];
  const handle = await database.open();
  try {
    const rows = await handle.db
      .select({ id: metadataDrafts.id })
      .from(metadataDrafts)
      .where(inArray(metadataDrafts.id, [...drafts]));
    const stored = new Set(rows.map((row) => row.id));
    const lost = drafts.filter((id) => !stored.has(id));
    return lost.length === 0
      ? []
      : [{ path: 'metadata_drafts', message: `${lost.length} acknowledged drafts lost`, expected: lost }];
  } finally {
    await handle.close();
  }
}
