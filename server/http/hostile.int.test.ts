import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { FormData } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, shippedLimits, startAppServer } from '../_test/app-server';
import { fetchFrom, freshLoopbackClient } from '../_test/client-fetch';
import { availableBackends, createTestDatabase, type TestDatabase } from '../_test/database';
import { type LoopbackDnsServer, startLoopbackDns } from '../_test/dns-server';
import { storeLargeObject } from '../_test/large-object';
import { rawRequest } from '../_test/raw-http';
import { redisReachable } from '../_test/redis';
import { type IndexedStack, startIndexedStack } from '../_test/stack';
import { type StallProxy, startStallProxy } from '../_test/stall-proxy';
import { parseConfig } from '../config';
import { MAX_IMAGE_BYTES } from '../metadata/image';
import { excludeToken, includeToken } from '../tokens/moderation';

const [backend] = await availableBackends();
if (!(await redisReachable())) throw new Error('the Redis stall case needs a Redis on 127.0.0.1:6379');
const probeScript = path.resolve(import.meta.dirname, '../_test/latency-probe.ts');
const ATTACK_MS = 10_000;
/** For investigating one attack at a time: HOSTILE_ATTACKS=batches,streams (default: all). */
const only = process.env.HOSTILE_ATTACKS?.split(',');
const enabled = (name: string) => !only || only.includes(name);

interface ProbeResult {
  latencies: number[];
  /** [start offset ms, latency ms] of answers slower than 100 ms, to tell a burst from a drift. */
  slow: [number, number][];
  failures: string[];
}

/**
 * A normal client: GET /api/v1/tokens at a steady pace from its own addresses (each well inside
 * the default read limit), in a process of its own (server/_test/latency-probe.ts).
 */
async function startProbe(baseUrl: string, perSecond: number) {
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

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
};

/**
 * Attackers join within the first second, as a real attack ramps up: the attacking process runs
 * on the same two cores as the server, and sixty sockets opened in one instant measure that
 * process's connection storm more than the server.
 */
const ramp = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 1_000));

/** Runs `attack` with `concurrency` loops until `until`, tallying what each answer was. */
async function repeat(until: number, concurrency: number, attack: () => Promise<string>) {
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
function floodBody(port: number, head: string, total: number, localAddress: string) {
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
 * One round of every enabled attack against the server while a normal reader (the probe) reads,
 * with the reader's baseline just before it. What each attacker got back is in the report.
 */
async function attackRound(stack: IndexedStack, base: string, port: number) {
  const warm = await startProbe(base, 30);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const baseline = await warm.stop();
  const rssBefore = stack.server.residentBytes();
  let rssMax = rssBefore;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, stack.server.residentBytes());
  }, 200);
  const probe = await startProbe(base, 30);
  const until = Date.now() + ATTACK_MS;

  const batchClient = fetchFrom(freshLoopbackClient());
  const tenCalls = Array.from({ length: 10 }, () => 'tokens.list').join(',');
  const tenInputs = encodeURIComponent(
    JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i, { json: { limit: 100 } }]))),
  );
  const batches = repeat(enabled('batches') ? until : 0, 6, async () => {
    const answer = await batchClient(`${base}/api/trpc/${tenCalls}?batch=1&input=${tenInputs}`);
    await answer.arrayBuffer();
    return String(answer.status);
  });

  const oversizeClient = fetchFrom(freshLoopbackClient());
  const manyCalls = Array.from({ length: 225 }, () => 'tokens.list').join(',');
  const oversized = repeat(enabled('oversize') ? until : 0, 4, async () => {
    const answer = await oversizeClient(`${base}/api/trpc/${manyCalls}?batch=1`);
    await answer.arrayBuffer();
    return String(answer.status);
  });

  const bodyAddress = freshLoopbackClient();
  const hundredMb = 100 * 1024 * 1024;
  const bodies = (async () => {
    if (!enabled('bodies')) return {};
    const results: Record<string, { status: number; sent: number }> = {};
    results.trpc = await floodBody(
      port,
      `POST /api/trpc/metadata.finalize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${hundredMb}\r\n\r\n`,
      hundredMb,
      bodyAddress,
    );
    results.upload = await floodBody(
      port,
      'POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XX\r\nTransfer-Encoding: chunked\r\n\r\n',
      hundredMb,
      bodyAddress,
    );
    results.finalize = await floodBody(
      port,
      'POST /api/v1/token-metadata/d_AAAAAAAAAAAAAAAA/finalize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      hundredMb,
      bodyAddress,
    );
    return results;
  })();

  const dripAddress = freshLoopbackClient();
  const drips = Promise.all([
    ...Array.from({ length: enabled('drips') ? 30 : 0 }, () => {
      const parts: (string | number)[] = [
        'POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: 100000\r\n\r\n',
      ];
      for (let i = 0; i < 40; i++) parts.push(300, 'a');
      return ramp().then(() =>
        rawRequest(port, parts, { localAddress: dripAddress, timeoutMs: ATTACK_MS + 20_000 }),
      );
    }),
    ...Array.from({ length: enabled('drips') ? 30 : 0 }, () => {
      const parts: (string | number)[] = ['GET /api/v1/tokens HTTP/1.1\r\nHost: x\r\n'];
      for (let i = 0; i < 40; i++) parts.push(300, `X-${i}: a\r\n`);
      return ramp().then(() =>
        rawRequest(port, parts, { localAddress: dripAddress, timeoutMs: ATTACK_MS + 15_000 }),
      );
    }),
  ]);

  const spoofer = fetchFrom(freshLoopbackClient());
  let spoofed = 0;
  const spoofs = repeat(enabled('spoof') ? until : 0, 2, async () => {
    const form = new FormData();
    form.append('name', 'x');
    const answer = await spoofer(`${base}/api/v1/token-metadata`, {
      method: 'POST',
      body: 'not multipart',
      headers: { 'content-type': 'text/plain', 'x-forwarded-for': `203.0.113.${spoofed++ % 250}` },
    });
    await answer.arrayBuffer();
    return String(answer.status);
  });

  const streamAddress = freshLoopbackClient();
  const streamer = fetchFrom(streamAddress);
  const held: AbortController[] = [];
  const streams = (async () => {
    const tally: Record<string, number> = {};
    if (!enabled('streams')) return tally;
    await ramp();
    // Twenty at once, each read as a live client would, so none closes for overflowing.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const abort = new AbortController();
        held.push(abort);
        // A few resume from the start of the chain: far more than the queue holds.
        const query = i % 5 === 0 ? '?since=0' : '';
        return streamer(`${base}/api/v1/stream${query}`, { signal: abort.signal }).catch(() => undefined);
      }),
    );
    for (const answer of answers) {
      const key = String(answer?.status ?? 'error');
      tally[key] = (tally[key] ?? 0) + 1;
      if (answer?.status === 200) void answer.body?.pipeTo(new WritableStream()).catch(() => {});
      else await answer?.arrayBuffer();
    }
    return tally;
  })();

  const [batchTally, oversizeTally, bodyResults, dripAnswers, spoofTally, streamTally] = await Promise.all([
    batches,
    oversized,
    bodies,
    drips,
    spoofs,
    streams,
  ]);
  const result = await probe.stop();
  for (const abort of held) abort.abort();
  clearInterval(sampler);
  const growth = rssMax - rssBefore;
  const report = {
    baselineP99: percentile(baseline.latencies, 99),
    probeRequests: result.latencies.length,
    probeP50: percentile(result.latencies, 50),
    probeP99: percentile(result.latencies, 99),
    probeMax: Math.max(...result.latencies),
    probeSlow: result.slow.map(([at, ms]) => `${at}:${ms}`).join(' '),
    rssBeforeMb: Math.round(rssBefore / 2 ** 20),
    rssGrowthMb: Math.round(growth / 2 ** 20),
    batchTally,
    oversizeTally,
    bodyResults,
    dripStatuses: dripAnswers.map((a) => a.status).join(','),
    spoofTally,
    streamTally,
  };
  return { report, failures: result.failures, latencies: result.latencies.length, growth };
}

describe(`hostile clients against one server (${backend})`, () => {
  let stack: IndexedStack;
  let port: number;
  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    // Shipped defaults throughout.
    stack = await startIndexedStack(backend, { seed: 12, launches: 8, actions: 60 }, shippedLimits);
    port = Number(new URL(stack.server.baseUrl).port);
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('a normal reader keeps p99 < 100 ms and the server grows < 100 MB while six attackers run', async () => {
    const base = stack.server.baseUrl;
    // Next.js loads each route's bundle on its first request: load them all before measuring.
    const warmer = fetchFrom(freshLoopbackClient());
    for (const path of [
      '/',
      '/api/trpc/tokens.list?input=%7B%22json%22%3A%7B%7D%7D',
      '/objects/x.png',
      '/api/v1/openapi.json',
    ])
      await (await warmer(`${base}${path}`)).arrayBuffer();
    // The write paths too (body streaming, multipart, JSON): their code loads on first use.
    const warmForm = new FormData();
    warmForm.append('name', 'warm');
    await (
      await warmer(`${base}/api/v1/token-metadata`, { method: 'POST', body: warmForm as never })
    ).arrayBuffer();
    await floodBody(
      port,
      'POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XX\r\nTransfer-Encoding: chunked\r\n\r\n',
      8 * 2 ** 20,
      freshLoopbackClient(),
    );
    await (
      await warmer(`${base}/api/v1/token-metadata/d_AAAAAAAAAAAAAAAA/finalize`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      })
    ).arrayBuffer();
    const warmStream = new AbortController();
    await warmer(`${base}/api/v1/stream`, { signal: warmStream.signal });
    warmStream.abort();
    // The first round meets every path cold, in the server and in this attacking process,
    // which share the machine's two cores with the probe and PostgreSQL: its slow answers
    // (up to ~330 ms, all in its first 700 ms) were JIT and first use, gone from later rounds
    // (max 35-63 ms). The bound is about a server under a sustained attack, so it holds for
    // the round after; the cold one is reported, and its attackers must still be held.
    const cold = await attackRound(stack, base, port);
    console.log('hostile-client run (cold)', JSON.stringify(cold.report, null, 1));
    expect(cold.failures).toEqual([]);
    expect(cold.report.streamTally).toEqual({ 200: 8, 429: 12 });
    expect(cold.growth).toBeLessThan(100 * 2 ** 20);
    const { report, failures, latencies, growth } = await attackRound(stack, base, port);
    console.log('hostile-client run', JSON.stringify(report, null, 1));

    expect(failures).toEqual([]);
    expect(latencies).toBeGreaterThan(200);
    expect(report.probeP99).toBeLessThan(100);
    expect(growth).toBeLessThan(100 * 2 ** 20);
    // Each attacker was held to the shipped limits.
    expect(report.batchTally['429'] ?? 0).toBeGreaterThan(0);
    expect(Object.keys(report.oversizeTally).every((status) => status === '400' || status === '429')).toBe(
      true,
    );
    expect(report.bodyResults.trpc?.status).toBe(405);
    expect(report.bodyResults.upload?.status).toBe(413);
    expect(report.bodyResults.finalize?.status).toBe(413);
    // The server stopped taking bytes soon after it answered: back-pressure, not a 100 MB read.
    for (const flood of Object.values(report.bodyResults)) expect(flood.sent).toBeLessThan(40 * 1024 * 1024);
    for (const status of report.dripStatuses.split(',')) expect(['408', '429']).toContain(status);
    expect(report.spoofTally['429'] ?? 0).toBeGreaterThan(0);
    // The shipped uploads bucket: a burst of 20, then 20 a minute, whatever the forwarded address.
    expect(report.spoofTally['415'] ?? 0).toBeLessThanOrEqual(
      20 + Math.ceil((20 * (ATTACK_MS + 1_000)) / 60_000),
    );
    expect(report.streamTally).toEqual({ 200: 8, 429: 12 });
  }, 180_000);
  it("hosts: 6 Hosts the URL parser rejects are each a 400 at the front (none a 500); a forged Host is in 0 of a page's URLs", async () => {
    const base = stack.server.baseUrl;
    const client = freshLoopbackClient();
    const list = (await (await fetchFrom(client)(`${base}/api/v1/tokens?limit=1`)).json()) as {
      items: { address: string }[];
    };
    const token = list.items[0]?.address as string;
    const page = (host: string, extra = '') =>
      rawRequest(
        port,
        `GET /tokens/${token} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`,
        {
          localAddress: client,
          timeoutMs: 30_000,
        },
      );
    // IPv4 past 255, an invalid punycode label, a port past 65535, a forbidden code point once
    // percent-decoded, an empty Host, IPv4 with an octet past 255 in hex.
    for (const host of ['1.1.1.256', 'xn--a', 'example.com:99999', 'a%20b', '', '0x1.1.1.0x100']) {
      const answer = await page(host);
      expect([host, answer.status]).toEqual([host, 400]);
      const { error } = JSON.parse(answer.body) as { error: { code: string; message: string } };
      expect(error.code).toBe('bad_request');
      expect(error.message).toMatch(/Host/);
    }

    const forged = await page(
      'evil.example',
      'X-Forwarded-Host: evil-forwarded.example\r\nX-Forwarded-Proto: https\r\n',
    );
    expect(forged.status).toBe(200);
    expect(forged.body).not.toMatch(/evil/);
    const absolute = [...forged.body.matchAll(/(?:content|href)="(https?:\/\/[^"]*)"/g)].map(
      (m) => m[1] as string,
    );
    // og:image, og:url, twitter:image and the canonical link, all on the configured base.
    expect(absolute.length).toBeGreaterThanOrEqual(4);
    for (const url of absolute) expect(url.startsWith(`${base}/`)).toBe(true);
  });

  it('cards: unknown tokens are a 404; a card asked for 20 times in one indexed block is drawn once (1 miss, 19 hits)', async () => {
    const base = stack.server.baseUrl;
    const reader = fetchFrom(freshLoopbackClient());
    const unknown = await reader(`${base}/tokens/0x${'22'.repeat(20)}/opengraph-image`);
    expect([unknown.status, unknown.headers.get('content-type')]).toEqual([
      404,
      'application/json; charset=utf-8',
    ]);
    await unknown.arrayBuffer();

    const list = (await (await reader(`${base}/api/v1/tokens?limit=2&view=top`)).json()) as {
      items: { address: string }[];
    };
    const url = `${base}/tokens/${list.items[1]?.address}/opengraph-image`;
    const outcomes: string[] = [];
    const hitMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const answer = await reader(url);
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
      outcomes.push(answer.headers.get('x-card-cache') ?? 'none');
      if (i > 0) hitMs.push(performance.now() - started);
    }
    expect(outcomes).toEqual(['miss', ...Array(19).fill('hit')]);
    console.log(`hostile cards: 19 cached answers, max ${Math.max(...hitMs).toFixed(1)} ms`);
  });

  // PGlite lets one process open its database; moderation is a second writer on PostgreSQL only.
  if (backend === 'postgres')
    it("cards: a hidden (moderated) token's card is a 404 on the next request (0 cached cards of it served)", async () => {
      const base = stack.server.baseUrl;
      const reader = fetchFrom(freshLoopbackClient());
      const list = (await (await reader(`${base}/api/v1/tokens?limit=1&view=top`)).json()) as {
        items: { address: string }[];
      };
      const address = list.items[0]?.address as string;
      const url = `${base}/tokens/${address}/opengraph-image`;
      await (await reader(url)).arrayBuffer();
      expect((await reader(url)).headers.get('x-card-cache')).toBe('hit');
      const handle = await stack.database.open();
      try {
        await excludeToken(handle.db, address, 'hostile card test');
        const hidden = await reader(url);
        expect(hidden.status).toBe(404);
        await hidden.arrayBuffer();
      } finally {
        await includeToken(handle.db, address);
        await handle.close();
      }
    });

  it('upload volume: one address stores at most its 50 MB budget, not the 6 GB an hour its upload rate allows', async () => {
    const { drafts, rateLimits } = parseConfig({});
    const objectsDir = path.join(stack.database.env.DATA_DIR as string, 'objects');
    const diskBefore = directoryBytes(objectsDir);
    const uploader = fetchFrom(freshLoopbackClient());
    // Incompressible images just under the 5 MB limit, each new: content addressing saves nothing.
    const largest = async () => {
      const side = 1280;
      const raw = randomBytes(side * side * 3);
      return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
        .png({ compressionLevel: 0 })
        .toBuffer();
    };
    const tally: Record<string, number> = {};
    let accepted = 0;
    // Two at a time (the concurrent upload limit), until the budget has refused a few.
    while ((tally.storage_budget_exceeded ?? 0) < 4 && accepted + (tally.storage_budget_exceeded ?? 0) < 30) {
      const answers = await Promise.all(
        [0, 1].map(async () => {
          const form = new FormData();
          form.append('name', 'Volume');
          form.append('symbol', 'VOL');
          form.append('initial_supply', (10n ** 27n).toString());
          form.append('image', new Blob([new Uint8Array(await largest())], { type: 'image/png' }), 'v.png');
          const answer = await uploader(`${stack.server.baseUrl}/api/v1/token-metadata`, {
            method: 'POST',
            body: form as never,
          });
          const body = (await answer.json()) as { error?: { code: string } };
          return answer.status === 201 ? 'created' : `${answer.status} ${body.error?.code}`;
        }),
      );
      for (const outcome of answers) {
        if (outcome === 'created') accepted++;
        const key = outcome === '429 storage_budget_exceeded' ? 'storage_budget_exceeded' : outcome;
        tally[key] = (tally[key] ?? 0) + 1;
      }
    }
    const grown = directoryBytes(objectsDir) - diskBefore;
    const rateOnlyPerHour = rateLimits.uploads.perMinute * 60 * MAX_IMAGE_BYTES;
    console.log(
      'upload volume',
      JSON.stringify({
        tally,
        accepted,
        diskGrownMb: grown / 1e6,
        budgetMb: drafts.budgetBytes / 1e6,
        rateOnlyPerHourGb: rateOnlyPerHour / 1e9,
      }),
    );
    // The figure docs/security.md states: one address holds at most the budget (50 MB) of unbound
    // drafts, whatever its upload rate would carry (20/min × 5 MB ≈ 6 GB an hour).
    expect(grown).toBeLessThanOrEqual(drafts.budgetBytes);
    expect(grown).toBeGreaterThan(drafts.budgetBytes - 2 * MAX_IMAGE_BYTES);
    expect(tally.storage_budget_exceeded).toBeGreaterThanOrEqual(4);
    expect(Object.keys(tally).sort()).toEqual(['created', 'storage_budget_exceeded']);
    expect(rateOnlyPerHour).toBeGreaterThan(100 * drafts.budgetBytes);
  }, 180_000);

  it('20,000 pipelined GETs per connection, again each second: every connection cut at once, the reader keeps p50 < 20 ms and max < 1 s', async () => {
    const base = stack.server.baseUrl;
    await (await fetchFrom(freshLoopbackClient())(`${base}/api/v1/tokens?limit=20`)).arrayBuffer();
    const warm = await startProbe(base, 30);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const baseline = await warm.stop();
    const rssBefore = stack.server.residentBytes();
    let rssMax = rssBefore;
    const sampler = setInterval(() => {
      rssMax = Math.max(rssMax, stack.server.residentBytes());
    }, 200);
    const probe = await startProbe(base, 30);
    const attacker = freshLoopbackClient();
    const floods: { answers: number; closedAfterMs: number }[] = [];
    const until = Date.now() + ATTACK_MS;
    while (Date.now() < until) {
      floods.push(await pipelineFlood(port, '/api/v1/tokens?limit=20', 20_000, attacker));
      // The refusal says Retry-After: 1; a flooder that honours it comes back each second.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const result = await probe.stop();
    clearInterval(sampler);
    const report = {
      connections: floods.length,
      maxAnswers: Math.max(...floods.map((f) => f.answers)),
      maxClosedAfterMs: Math.round(Math.max(...floods.map((f) => f.closedAfterMs))),
      baselineP99: percentile(baseline.latencies, 99),
      probeRequests: result.latencies.length,
      probeP50: percentile(result.latencies, 50),
      probeP99: percentile(result.latencies, 99),
      probeMax: Math.max(...result.latencies),
      rssGrowthMb: Math.round((rssMax - rssBefore) / 2 ** 20),
    };
    console.log('hostile pipelines', JSON.stringify(report));
    expect(result.failures).toEqual([]);
    expect(report.connections).toBeGreaterThanOrEqual(5);
    // Each of the 20,000-request connections: at most its 4 in-flight answers and the 429.
    expect(report.maxAnswers).toBeLessThanOrEqual(5);
    expect(report.maxClosedAfterMs).toBeLessThan(1_000);
    // What is left: each flood's one socket read (~1,700 requests) is parsed before the cut, a
    // stall of tens of ms on a quiet core (up to ~600 ms recorded on this shared, loaded box).
    // Before the cap, the same flood was answered in full for ~10 s at p99 1,020 ms.
    expect(report.probeP50).toBeLessThan(20);
    expect(report.probeMax).toBeLessThan(1_000);
    expect(rssMax - rssBefore).toBeLessThan(50 * 2 ** 20);
  }, 120_000);
});

/**
 * One connection writes `count` pipelined GETs of `target`; resolves with how many answers came
 * back and when the server closed the connection.
 */
function pipelineFlood(port: number, target: string, count: number, localAddress: string) {
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

describe(`hostile clients against one server: slow readers, resolver and Redis stalls (${backend})`, () => {
  // Shipped defaults but for the waits under test, shortened so the suite need not wait a minute.
  const SEND_TIMEOUT_MS = 2_000;
  const shipped = parseConfig({});
  let database: TestDatabase;
  let server: AppServer;
  let port: number;
  let dns: LoopbackDnsServer;
  let redis: StallProxy;
  let bigObject: { key: string; length: number; dir: string };
  beforeAll(async () => {
    if (!backend) throw new Error('no backend');
    database = await createTestDatabase(backend);
    bigObject = storeLargeObject(database.env.DATA_DIR as string);
    // Every image_url name is asked of a loopback name server that never answers.
    dns = await startLoopbackDns({ silent: true });
    redis = await startStallProxy(6379);
    server = await startAppServer({
      ...database.env,
      ...shippedLimits,
      OBJECTS_DIR: bigObject.dir,
      HTTP_SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
      IMAGE_DNS_SERVERS: dns.address,
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    });
    port = Number(new URL(server.baseUrl).port);
    const warmer = fetchFrom(freshLoopbackClient());
    for (const target of ['/api/v1/tokens?limit=20', `/objects/${bigObject.key}`, '/api/health'])
      await (await warmer(`${server.baseUrl}${target}`)).arrayBuffer();
  }, 180_000);
  afterAll(async () => {
    redis?.resume();
    await server?.stop();
    await database?.drop();
    await dns?.close();
    await redis?.close();
  });

  it(`16 readers of a 4.5 MB object that never read: cut at the ${SEND_TIMEOUT_MS / 1000} s send deadline, their work slots then free, every request of the reader answered`, async () => {
    const address = freshLoopbackClient();
    const rssBefore = server.residentBytes();
    const probe = await startProbe(server.baseUrl, 30);
    const started = performance.now();
    // As many as the client's shipped work share (WORK_PER_CLIENT): every slot it has.
    const stalled = Array.from({ length: shipped.http.workPerClient }, () => {
      const entry: { socket: Socket; closed: boolean; received: number } = {
        socket: connect({ port, host: '127.0.0.1', localAddress: address }),
        closed: false,
        received: 0,
      };
      entry.socket.on('data', (chunk: Buffer) => {
        entry.received += chunk.length;
      });
      entry.socket.on('error', () => {});
      entry.socket.on('close', () => {
        entry.closed = true;
      });
      entry.socket.write(`GET /objects/${bigObject.key} HTTP/1.1\r\nHost: x\r\n\r\n`);
      entry.socket.pause();
      return entry;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rssHeld = server.residentBytes();
    // The client's next read needs a slot its stalled answers hold: it waits for the cut.
    const next = await fetchFrom(address)(`${server.baseUrl}/api/health`);
    await next.arrayBuffer();
    const nextMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const result = await probe.stop();
    for (const entry of stalled) entry.socket.resume();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const report = {
      cut: stalled.filter((e) => e.closed && e.received < bigObject.length).length,
      takenByKernel: stalled.filter((e) => e.received >= bigObject.length).length,
      nextMs: Math.round(nextMs),
      rssHeldMb: Math.round((rssHeld - rssBefore) / 2 ** 20),
      rssAfterMb: Math.round((server.residentBytes() - rssBefore) / 2 ** 20),
      probeRequests: result.latencies.length,
      probeP99: percentile(result.latencies, 99),
      probeMax: Math.max(...result.latencies),
    };
    console.log('hostile slow readers', JSON.stringify(report));
    expect(result.failures).toEqual([]);
    // An answer is either cut, or was wholly taken by the kernel's buffers (nothing held).
    expect(report.cut + report.takenByKernel).toBe(stalled.length);
    expect(report.cut).toBeGreaterThan(0);
    expect(next.status).toBe(200);
    // Checked every 500 ms: the slots came free between the deadline and one check after it.
    expect(nextMs).toBeGreaterThanOrEqual(SEND_TIMEOUT_MS - 100);
    expect(nextMs).toBeLessThan(SEND_TIMEOUT_MS + 500 + 2_000);
    // The reader's latency here is the cost of reading 72 MB from disk at once (logged), not of
    // holding it; what holding costs is the slots, asserted above.
    expect(report.probeRequests).toBeGreaterThan(40);
  }, 60_000);

  it(`6 image_url uploads whose DNS never answers fail at the ${shipped.imageDns.timeoutMs / 1000} s DNS deadline while an image upload beside them takes < half of it`, async () => {
    const upload = (address: string, fields: Record<string, string>, image?: Buffer) => {
      const form = new FormData();
      for (const [name, value] of Object.entries({
        name: 'Stall Test',
        symbol: 'STL',
        initial_supply: (10n ** 27n).toString(),
        ...fields,
      }))
        form.append(name, value);
      if (image) form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'logo.png');
      const started = performance.now();
      return fetchFrom(address)(`${server.baseUrl}/api/v1/token-metadata`, {
        method: 'POST',
        body: form as never,
      }).then(async (answer) => ({
        status: answer.status,
        body: (await answer.json()) as { error?: { code: string; message: string } },
        ms: performance.now() - started,
      }));
    };
    // Three addresses, two uploads each: the shipped UPLOADS_PER_CLIENT.
    const stalls = [0, 1, 2].flatMap(() => {
      const address = freshLoopbackClient();
      return [0, 1].map((i) =>
        upload(address, { image_url: `https://stall-${address}-${i}.example/logo.png` }),
      );
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // getaddrinfo would now hold 4 of libuv's 4 pool threads; sharp and the file write need them.
    const image = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#2f9e44' } })
      .png()
      .toBuffer();
    const beside = await upload(freshLoopbackClient(), {}, image);
    const stalled = await Promise.all(stalls);
    console.log(
      'hostile resolver stalls',
      JSON.stringify({ besideMs: Math.round(beside.ms), stalledMs: stalled.map((s) => Math.round(s.ms)) }),
    );
    expect(beside.status).toBe(201);
    // Well inside the DNS deadline the stalls wait for: nothing of theirs is in its way.
    expect(beside.ms).toBeLessThan(shipped.imageDns.timeoutMs / 2);
    for (const answer of stalled) {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual({
        code: 'invalid_image',
        message: `image_url did not resolve within ${shipped.imageDns.timeoutMs / 1000} s`,
      });
      expect(answer.ms).toBeLessThan(shipped.imageDns.timeoutMs + 1_000);
    }
    expect(dns.queries.length).toBeGreaterThanOrEqual(12);
  }, 60_000);

  it(`a Redis that stops answering: every request still answered, none waits more than the ${shipped.redisCommandTimeoutMs} ms command timeout + 250 ms`, async () => {
    const before = await fetchFrom(freshLoopbackClient())(`${server.baseUrl}/api/v1/tokens?limit=20`);
    await before.arrayBuffer();
    expect(before.headers.get('ratelimit')).toMatch(/"reads";r=\d+/);
    redis.stall();
    const probe = await startProbe(server.baseUrl, 30);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const result = await probe.stop();
    redis.resume();
    const report = {
      probeRequests: result.latencies.length,
      probeP50: percentile(result.latencies, 50),
      probeP99: percentile(result.latencies, 99),
      probeMax: Math.max(...result.latencies),
    };
    console.log('hostile Redis stall', JSON.stringify(report));
    // Failing open: answered, not refused, not hung.
    expect(result.failures).toEqual([]);
    expect(report.probeRequests).toBeGreaterThan(100);
    expect(report.probeMax).toBeLessThan(shipped.redisCommandTimeoutMs + 250);
    // Only the check that finds the store hung waits; the next second's do not ask it.
    expect(report.probeP50).toBeLessThan(50);
  }, 60_000);
});

/** Bytes of the files directly in `dir` (the filesystem object store keeps no subdirectories). */
function directoryBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
}
