import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { freshLoopbackClient } from '../client-fetch';

/**
 * The clients of the hostile suites (hostile-attacks, hostile-stalls): a normal reader that
 * measures its latency in a process of its own, and the raw-socket attackers both suites use.
 */

const probeScript = path.resolve(import.meta.dirname, '../latency-probe.ts');

export interface ProbeResult {
  latencies: number[];
  /** [start offset ms, latency ms] of answers slower than 100 ms, to tell a burst from a drift. */
  slow: [number, number][];
  failures: string[];
}

/**
 * A normal client: GET /api/v1/tokens at a steady pace from its own addresses (each well inside
 * the default read limit), in a process of its own (test/latency-probe.ts).
 */
export async function startProbe(baseUrl: string, perSecond: number) {
  const addresses = [0, 1, 2].map(() => freshLoopbackClient()).join(',');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', probeScript, `${baseUrl}/api/v1/tokens?limit=20`, String(perSecond), addresses],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await new Promise<void>((resolve) => {
    const check = () => (output.startsWith('ready') ? resolve() : setTimeout(check, 20));
    check();
  });
  return {
    async stop(): Promise<ProbeResult> {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(output.slice(output.indexOf('\n') + 1)) as ProbeResult;
    },
  };
}

/**
 * The reader of an attack: its baseline (two quiet seconds of the probe), then the probe again
 * with the server's resident memory sampled every 200 ms until `stop`.
 */
export async function startMeasuredReader(baseUrl: string, server: { residentBytes(): number }) {
  const warm = await startProbe(baseUrl, 30);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const baseline = await warm.stop();
  const rssBefore = server.residentBytes();
  let rssMax = rssBefore;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, server.residentBytes());
  }, 200);
  const probe = await startProbe(baseUrl, 30);
  return {
    baseline,
    rssBefore,
    /** Stops the probe, then the sampler: the probe's result and the largest RSS seen. */
    async stop(): Promise<{ result: ProbeResult; rssMax: number }> {
      const result = await probe.stop();
      clearInterval(sampler);
      return { result, rssMax };
    },
  };
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
};

/**
 * Attackers join within the first second, as a real attack ramps up: the attacking process runs
 * on the same two cores as the server, and sixty sockets opened in one instant measure that
 * process's connection storm more than the server.
 */
export const ramp = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 1_000));

/** Runs `attack` with `concurrency` loops until `until`, tallying what each answer was. */
export async function repeat(until: number, concurrency: number, attack: () => Promise<string>) {
  const tally = new Map<string, number>();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      await ramp();
      while (Date.now() < until) {
        const outcome = await attack().catch((error: unknown) => `error ${(error as Error).message}`);
        tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
      }
    }),
  );
  return Object.fromEntries(tally);
}

/**
 * Sends a request head, then body bytes as fast as the server takes them (up to `total`), and
 * reports the answer's status and how much the server let through before it answered.
 */
export function floodBody(port: number, head: string, total: number, localAddress: string) {
  return new Promise<{ status: number; sent: number }>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    const payload = Buffer.alloc(64 * 1024, 0x61);
    // Framed as HTTP chunks when the head says so: a well-formed, just endless, body.
    const chunk = /transfer-encoding: chunked/i.test(head)
      ? Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')])
      : payload;
    let sent = 0;
    let answer = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), sent });
    };
    const pump = () => {
      while (!done && sent < total) {
        sent += payload.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.on('data', (data) => {
      answer += data.toString('latin1');
      if (answer.includes('\r\n\r\n')) setTimeout(finish, 50);
    });
    socket.on('error', finish);
    socket.on('close', finish);
    setTimeout(finish, 15_000);
    socket.write(head, pump);
  });
}

/**
 * One connection writes `count` pipelined GETs of `target`; resolves with how many answers came
 * back and when the server closed the connection.
 */
export function pipelineFlood(port: number, target: string, count: number, localAddress: string) {
  return new Promise<{ answers: number; closedAfterMs: number }>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    const started = performance.now();
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({
        answers: text.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0,
        closedAfterMs: performance.now() - started,
      });
    });
    socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(count));
  });
}

/** Bytes of the files directly in `dir` (the filesystem object store keeps no subdirectories). */
export function directoryBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
}
