import { execFile } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from './app-server';

const run = promisify(execFile);

/**
 * A PostgreSQL primary with one hot standby fed by PostgreSQL's own streaming replication, both
 * in temporary data directories on loopback ports. The primary is a cluster of its own (initdb),
 * not the machine's shared server: `pg_basebackup` copies a whole cluster, and the shared one
 * holds every other suite's databases and the benchmark's 46 GB, and its pg_hba.conf admits no
 * replication connections.
 */
export interface ReplicatedPostgres {
  /** The primary's `launchdex` database. */
  primaryUrl: string;
  /** The same database through the standby (read-only). */
  replicaUrl: string;
  /** `pg_wal_replay_pause()` on the standby: it keeps answering, frozen at what it replayed. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Until the standby has replayed everything the primary had written when this was called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Stops the standby's server (fast shutdown: its connections are cut). */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Stops the primary's server (fast shutdown); the standby keeps answering what it replayed. */
  stopPrimary(): Promise<void>;
  startPrimary(): Promise<void>;
  /**
   * SIGSTOP to a server's postmaster and every backend: what a partition or a stuck disk looks
   * like (connections stay open, nothing answers). `thaw` sends SIGCONT.
   */
  freeze(server: 'primary' | 'replica'): Promise<void>;
  thaw(server: 'primary' | 'replica'): Promise<void>;
  /** `pg_ctl promote` of the standby: it becomes a primary (stop the old one first). */
  promoteReplica(): Promise<void>;
  stop(): Promise<void>;
}

/** Where the server binaries are, or why a replica cannot be started on this machine. */
export function replicationTools(): { bin: string; user: string | undefined } | { missing: string } {
  const bin = process.env.TEST_PG_BIN ?? newestPostgresBin();
  if (!bin) return { missing: 'no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) found' };
  for (const tool of ['initdb', 'pg_ctl', 'pg_basebackup'])
    if (!existsSync(path.join(bin, tool))) return { missing: `${path.join(bin, tool)} is missing` };
  // The server refuses to run as root: it then runs as the `postgres` account (runuser).
  const root = process.getuid?.() === 0;
  if (root && !existsSync('/usr/sbin/runuser'))
    return { missing: 'running as root without runuser to start PostgreSQL as postgres' };
  return { bin, user: root ? 'postgres' : undefined };
}

function newestPostgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => path.join(base, version, 'bin')).find((bin) => existsSync(bin));
}

export interface ReplicatedPostgresOptions {
  /** More `postgresql.conf` lines for the primary (the standby copies them), e.g. a benchmark's memory. */
  settings?: readonly string[];
}

export async function startReplicatedPostgres(
  options: ReplicatedPostgresOptions = {},
): Promise<ReplicatedPostgres> {
  const tools = replicationTools();
  if ('missing' in tools) throw new Error(`cannot start a replica: ${tools.missing}`);
  const { bin, user } = tools;
  const base = mkdtempSync(path.join(tmpdir(), 'launchdex-replication-'));
  const primaryDir = path.join(base, 'primary');
  const replicaDir = path.join(base, 'replica');
  if (user) {
    const { stdout } = await run('id', ['-u', user]);
    const { stdout: group } = await run('id', ['-g', user]);
    chownSync(base, Number(stdout.trim()), Number(group.trim()));
  }
  const tool = async (name: string, args: string[]) => {
    const command = path.join(bin, name);
    const { stdout } = user
      ? await run('/usr/sbin/runuser', ['-u', user, '--', command, ...args], { cwd: base })
      : await run(command, args, { cwd: base });
    return stdout;
  };
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const urlAt = (port: number, database = 'launchdex') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const started: string[] = [];
  const pgCtl = async (dir: string, action: 'start' | 'stop') => {
    if (action === 'start')
      await tool('pg_ctl', [
        '-D',
        dir,
        '-l',
        path.join(base, `${path.basename(dir)}.log`),
        '-w',
        '-t',
        '60',
        'start',
      ]);
    else await tool('pg_ctl', ['-D', dir, '-m', 'fast', '-w', '-t', '60', 'stop']);
  };
  const stop = async () => {
    for (const dir of started.reverse()) await pgCtl(dir, 'stop').catch(() => {});
    rmSync(base, { recursive: true, force: true });
  };
  try {
    await tool('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // Durability is not under test: no fsync keeps a run fast on a shared disk.
    await appendFile(
      path.join(primaryDir, 'postgresql.conf'),
      [
        `port = ${primaryPort}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${base}'`,
        'wal_level = replica',
        'max_wal_senders = 4',
        'wal_keep_size = 256MB',
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'shared_buffers = 32MB',
        'hot_standby = on',
        ...(options.settings ?? []),
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(primaryDir, 'pg_hba.conf'),
      'local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n',
    );
    await pgCtl(primaryDir, 'start');
    started.push(primaryDir);
    const admin = postgres(urlAt(primaryPort, 'postgres'), { max: 1, onnotice: () => {} });
    await admin.unsafe('create database launchdex');
    await admin.end();
    // -R writes standby.signal and primary_conninfo: the copy starts as a streaming hot standby.
    // A fast checkpoint: the default spread one waits out most of checkpoint_timeout.
    await tool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
      '--checkpoint=fast',
    ]);
    await appendFile(
      path.join(replicaDir, 'postgresql.conf'),
      `port = ${replicaPort}\nhot_standby_feedback = on\n`,
    );
    await pgCtl(replicaDir, 'start');
    started.push(replicaDir);
  } catch (error) {
    await stop();
    throw error;
  }
  const onReplica = async <T>(work: (sql: postgres.Sql) => Promise<T>) => {
    const sql = postgres(urlAt(replicaPort), { max: 1, onnotice: () => {} });
    try {
      return await work(sql);
    } finally {
      await sql.end();
    }
  };
  /** pg_ctl stop and start of the server in `dir`, each a no-op when the server is already so. */
  const controlOf = (dir: string) => {
    let running = true;
    return {
      async stop() {
        if (!running) return;
        await pgCtl(dir, 'stop');
        running = false;
      },
      async start() {
        if (running) return;
        await pgCtl(dir, 'start');
        running = true;
      },
    };
  };
  const replica = controlOf(replicaDir);
  const primary = controlOf(primaryDir);
  const frozen = new Set<string>();
  /** The postmaster and its children (backends, walreceiver, ...), by the postmaster's pid file. */
  const signalServer = async (dir: string, signal: 'STOP' | 'CONT') => {
    const postmaster = readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]?.trim() ?? '';
    // The postmaster is stopped before its children are listed: a backend it forked between the
    // listing and its own stop would go on answering (a heartbeat that never misses a beat).
    if (signal === 'STOP') process.kill(Number(postmaster), 'SIGSTOP');
    const { stdout } = await run('pgrep', ['-P', postmaster]).catch(() => ({ stdout: '' }));
    const children = stdout.split('\n').filter(Boolean);
    // The postmaster last on a continue: its children are running before it forks new ones.
    const pids = signal === 'STOP' ? children : [...children, postmaster];
    for (const pid of pids) {
      try {
        process.kill(Number(pid), `SIG${signal}`);
      } catch (error) {
        // A backend that ended since pgrep listed it.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH' || pid === postmaster) throw error;
      }
    }
  };
  return {
    primaryUrl: urlAt(primaryPort),
    replicaUrl: urlAt(replicaPort),
    pauseReplay: () => onReplica((sql) => sql`select pg_wal_replay_pause()`).then(() => {}),
    resumeReplay: () => onReplica((sql) => sql`select pg_wal_replay_resume()`).then(() => {}),
    async caughtUp(timeoutMs = 30_000) {
      const primary = postgres(urlAt(primaryPort), { max: 1, onnotice: () => {} });
      const [{ lsn } = { lsn: '0/0' }] = await primary<
        { lsn: string }[]
      >`select pg_current_wal_lsn()::text as lsn`;
      await primary.end();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [row] = await onReplica(
          (sql) => sql<{ behind: boolean }[]>`select pg_last_wal_replay_lsn() < ${lsn}::pg_lsn as behind`,
        );
        if (row && !row.behind) return;
        if (Date.now() > deadline) throw new Error(`the standby has not replayed ${lsn} in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stopReplica: replica.stop,
    startReplica: replica.start,
    stopPrimary: primary.stop,
    startPrimary: primary.start,
    async freeze(server) {
      const dir = server === 'primary' ? primaryDir : replicaDir;
      await signalServer(dir, 'STOP');
      frozen.add(dir);
    },
    async thaw(server) {
      const dir = server === 'primary' ? primaryDir : replicaDir;
      await signalServer(dir, 'CONT');
      frozen.delete(dir);
    },
    async promoteReplica() {
      await tool('pg_ctl', ['-D', replicaDir, '-w', '-t', '60', 'promote']);
    },
    async stop() {
      // A test that failed with a server frozen: a stopped server cannot shut down.
      for (const dir of frozen) await signalServer(dir, 'CONT').catch(() => {});
      await stop();
    },
  };
}
