import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort, startAppServer } from '../../test/app-server';
import { collectOutput, productionScriptEnv } from '../../test/child-process';
import { treeCpuSeconds } from './process-cpu';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * A load generator is one client: these settings keep the gate running on every request (its cost
 * is measured) with limits no single load generator reaches, and give it the whole database pool,
 * as the floor has.
 */
export const outOfReachLimits = {
  RATE_LIMIT_READS_PER_MINUTE: '1000000000',
  RATE_LIMIT_READS_BURST: '1000000000',
  WORK_PER_CLIENT: '100000',
  QUEUED_PER_CLIENT: '100000',
  CONNECTIONS_PER_CLIENT: '100000',
  DATABASE_SLOTS_PER_CLIENT: '100000',
  DATABASE_MS_PER_SECOND_PER_CLIENT: '0',
};

/** A server under measurement: where it listens and how much CPU its process tree has used. */
export interface BenchServer {
  name: string;
  baseUrl: string;
  pid: number;
  /** Processes answering requests (1, or the cluster's workers). */
  workers: number;
  cpuSeconds(): number;
  /** What the server printed so far (Launchdex only). */
  output?(): string;
  stop(): Promise<void>;
}

/**
 * Launchdex as `npm run serve -- --workers N` runs it, through startAppServer (the test suites'
 * launcher). Its workers are its child processes (none: it serves alone).
 */
export async function startLaunchdex(env: Record<string, string>, workers: number): Promise<BenchServer> {
  const server = await startAppServer(env, { workers });
  // Pages rendered on every worker, as production renders them all day: Next.js's
  // AsyncLocalStorage then keeps async hooks on for every promise of its isolate (on Node 20).
  // Its isolate is the page thread's (docs/decisions.md, "Pages render in their own thread"); a
  // server that had never rendered a page would not show whether the API's thread pays for them.
  for (let page = 0; page < Math.max(1, server.workerPids().length) * 2; page++) {
    const response = await fetch(`${server.baseUrl}/`);
    if (!response.ok) throw new Error(`the home page answered ${response.status}`);
    await response.arrayBuffer();
  }
  return {
    name: 'Launchdex',
    baseUrl: server.baseUrl,
    pid: server.pid,
    workers: Math.max(1, server.workerPids().length),
    cpuSeconds: () => treeCpuSeconds(server.pid),
    output: () => server.output(),
    stop: () => server.stop(),
  };
}

/**
 * The floor (bench/floor.ts) over the same database, with as many workers: compiled as
 * Launchdex is (dist/bench-floor.js, `npm run build`), with the same postgres.js queue.
 */
export async function startFloor(
  databaseUrl: string,
  workers: number,
  cursorSecret: string,
): Promise<BenchServer> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      'dist/bench-floor.js',
      '--database-url',
      databaseUrl,
      '--port',
      String(port),
      '--workers',
      String(workers),
    ],
    {
      cwd: root,
      env: productionScriptEnv({ CURSOR_SECRET: cursorSecret }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = collectOutput(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`floor exited with ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(`${baseUrl}/health`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`floor did not answer /health within 90 s:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const pid = child.pid as number;
  return {
    name: 'floor',
    baseUrl,
    pid,
    workers,
    cpuSeconds: () => treeCpuSeconds(pid),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
