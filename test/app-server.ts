import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { parseConfig } from '../server/config';
import { collectOutput, productionScriptEnv } from './child-process';

const root = path.resolve(import.meta.dirname, '..');

/** The metrics token every test server gets; send {@link metricsHeaders} to read /api/metrics. */
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789';
export const metricsHeaders = { authorization: `Bearer ${TEST_METRICS_TOKEN}` };

const generousLimits = {
  RATE_LIMIT_READS_PER_MINUTE: '6000000',
  RATE_LIMIT_READS_BURST: '100000',
  WORK_PER_CLIENT: '1000',
  QUEUED_PER_CLIENT: '10000',
  DATABASE_MS_PER_SECOND_PER_CLIENT: '0',
};

/** The limits a deployment gets by default, for suites that prove them. */
export const shippedLimits: Record<keyof typeof generousLimits, string> = (() => {
  const { rateLimits, http, databaseMsPerSecondPerClient } = parseConfig({});
  return {
    RATE_LIMIT_READS_PER_MINUTE: String(rateLimits.reads.perMinute),
    RATE_LIMIT_READS_BURST: String(rateLimits.reads.burst),
    WORK_PER_CLIENT: String(http.workPerClient),
    QUEUED_PER_CLIENT: String(http.queuedPerClient),
    DATABASE_MS_PER_SECOND_PER_CLIENT: String(databaseMsPerSecondPerClient),
  };
})();

/** A free loopback port, chosen by the kernel. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface AppServer {
  baseUrl: string;
  /** The server process: the cluster primary when it runs workers. */
  pid: number;
  /** Resident memory of the server process in bytes (Linux /proc); with workers, the primary's. */
  residentBytes(): number;
  /** Processes the server process runs (its workers; none with one worker), from Linux /proc. */
  workerPids(): number[];
  output(): string;
  stop(): Promise<void>;
}

/** The compiled production server (`npm run build`: scripts/build-server.mjs). */
export const compiledServer = path.join(root, 'dist', 'serve.js');

export function assertBuilt(): void {
  if (!existsSync(path.join(root, '.next', 'BUILD_ID')) || !existsSync(compiledServer)) {
    throw new Error('No production build found: run `npm run build` before the integration and e2e tests.');
  }
}

export interface AppServerOptions {
  /** `--workers`: web worker processes behind one primary (default 1: one process, no primary). */
  workers?: number;
  timeoutMs?: number;
}

/**
 * Starts the real production server (`npm run serve`: Next.js behind its REST front) on a free
 * loopback port with the given environment and waits until /api/health answers 200.
 */
export async function startAppServer(
  env: Record<string, string>,
  options: AppServerOptions = {},
): Promise<AppServer> {
  assertBuilt();
  const timeoutMs = options.timeoutMs ?? 90_000;
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    // BENCH_RUNTIME=tsx: the TypeScript sources under tsx, to measure the compiled server against them.
    [
      ...(process.env.BENCH_RUNTIME === 'tsx'
        ? ['--import', 'tsx', path.join(root, 'scripts', 'serve.ts')]
        : [compiledServer]),
      '--workers',
      String(options.workers ?? 1),
    ],
    {
      cwd: root,
      env: productionScriptEnv({
        NEXT_TELEMETRY_DISABLED: '1',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        METRICS_TOKEN: TEST_METRICS_TOKEN,
        // A test process is one client doing the work of many users; the suites about limits
        // (server/http/*.int.test.ts) set their own, or the shipped ones (shippedLimits).
        ...generousLimits,
        ...env,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = collectOutput(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not become healthy within ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const pid = child.pid as number;
  return {
    baseUrl,
    pid,
    workerPids: () => {
      try {
        return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map(Number);
      } catch {
        return [];
      }
    },
    residentBytes: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    output,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      // A primary gives its workers up to 10 s before it kills them itself.
      const timer = setTimeout(() => child.kill('SIGKILL'), (options.workers ?? 1) > 1 ? 15_000 : 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
